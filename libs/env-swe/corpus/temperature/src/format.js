import units from './units.cjs'
import { convert } from './convert.js'

// Rounds to `digits` decimals, without a negative zero.
export function round(value, digits) {
  const scale = Math.pow(10, digits)
  const r = Math.round(value * scale) / scale
  return r === 0 ? 0 : r
}

// Formats a reading in another unit: '21.5 °C'.
export function format(value, from, to, digits = 1) {
  return round(convert(value, from, to), digits).toFixed(digits) + ' ' + units[to].symbol
}

// The lowest and highest of the readings, formatted in `to`.
export function range(readings, from, to) {
  if (readings.length === 0) return 'no readings'
  let low = readings[0]
  let high = readings[0]
  for (let i = 1; i < readings.length; i++) {
    if (readings[i] < low) low = readings[i]
    if (readings[i] > high) high = readings[i]
  }
  return format(low, from, to) + ' to ' + format(high, from, to)
}
