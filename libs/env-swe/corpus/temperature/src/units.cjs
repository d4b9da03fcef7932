'use strict'

// The units known, with their symbols and the absolute zero in each.
module.exports = {
  C: { symbol: '°C', absoluteZero: -273.15 },
  F: { symbol: '°F', absoluteZero: -459.67 },
  K: { symbol: 'K', absoluteZero: 0 }
}
