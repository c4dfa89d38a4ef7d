import htm from 'htm';
import { h } from 'preact';

/**
 * Templates without a JSX build step. htm hands every interpolated value to preact as a text node or a
 * property, never as markup: model and file text cannot become HTML.
 */
export const html = htm.bind(h);
