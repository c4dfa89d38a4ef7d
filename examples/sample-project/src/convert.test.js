'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { celsiusToFahrenheit, fahrenheitToCelsius } = require('./convert');

test('round-trips', () => {
  assert.strictEqual(celsiusToFahrenheit(100), 212);
  assert.strictEqual(fahrenheitToCelsius(32), 0);
});
