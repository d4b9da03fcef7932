'use strict'

function words(text) {
  return text.split(' ').filter((w) => w.length > 0)
}

// Greedy word wrap: each line holds as many words as fit in width; longer words are split.
function wrap(text, width) {
  if (width < 1) throw new RangeError('width must be at least 1')
  const lines = []
  let line = ''
  for (let word of words(text)) {
    while (word.length > width) {
      if (line.length > 0) {
        lines.push(line)
        line = ''
      }
      lines.push(word.slice(0, width))
      word = word.slice(width)
    }
    if (line.length === 0) line = word
    else if (line.length + 1 + word.length <= width) line = line + ' ' + word
    else {
      lines.push(line)
      line = word
    }
  }
  if (line.length > 0) lines.push(line)
  return lines
}

function truncate(text, max) {
  if (text.length <= max) return text
  if (max < 3) return text.slice(0, max)
  return text.slice(0, max - 3) + '...'
}

function padRight(text, width) {
  if (text.length >= width) return text
  return text + ' '.repeat(width - text.length)
}

function center(text, width) {
  if (text.length >= width) return text
  const total = width - text.length
  const left = Math.floor(total / 2)
  return ' '.repeat(left) + text + ' '.repeat(total - left)
}

module.exports = { words, wrap, truncate, padRight, center }
