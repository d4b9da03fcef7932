import units from './units.cjs'

// Converts a temperature to kelvin.
function toKelvin(value, unit) {
  if (unit === 'C') return value + 273.15
  if (unit === 'F') return ((value - 32) * 5) / 9 + 273.15
  if (unit === 'K') return value
  throw new RangeError('unknown unit ' + unit)
}

// Converts a temperature from kelvin.
function fromKelvin(kelvin, unit) {
  if (unit === 'C') return kelvin - 273.15
  if (unit === 'F') return ((kelvin - 273.15) * 9) / 5 + 32
  if (unit === 'K') return kelvin
  throw new RangeError('unknown unit ' + unit)
}

// Converts `value` from one unit to another; below absolute zero is an error.
export function convert(value, from, to) {
  if (!(from in units)) throw new RangeError('unknown unit ' + from)
  if (value < units[from].absoluteZero) throw new RangeError('below absolute zero')
  return fromKelvin(toKelvin(value, from), to)
}

// The number of readings at or above `threshold` (in the readings' unit).
export function countAtLeast(readings, threshold) {
  let count = 0
  for (let i = 0; i < readings.length; i++) {
    if (readings[i] >= threshold) count += 1
  }
  return count
}
