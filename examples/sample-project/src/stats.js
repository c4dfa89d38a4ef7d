'use strict';

function summarise(readings) {
  if (readings.length === 0) throw new Error('no readings');
  const min = Math.min(...readings);
  const max = Math.max(...readings);
  const mean = readings.reduce((sum, r) => sum + r, 0) / readings.length;
  return { min, max, mean };
}

module.exports = { summarise };
