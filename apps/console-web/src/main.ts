import { render } from 'preact';
import { App } from './app';
import { html } from './html';
import { takeToken } from './token';
import './styles.css';

const root = document.getElementById('app') as HTMLElement;
// The static "Loading…" placeholder goes: preact renders beside what the container holds.
root.replaceChildren();
render(html`<${App} token=${takeToken()} />`, root);
