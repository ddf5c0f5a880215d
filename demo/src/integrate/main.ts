import { bffLibrarySnippet } from './snippets.js';

const bff = document.querySelector<HTMLElement>('[data-snippet="bff-library"]');
if (bff) bff.textContent = bffLibrarySnippet;

for (const pre of document.querySelectorAll<HTMLPreElement>('.snippet pre')) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'Copy';
  button.addEventListener('click', () => void copy());
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(pre.querySelector('code')?.textContent ?? '');
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy';
    }
    setTimeout(() => (button.textContent = 'Copy'), 1500);
  };
  pre.append(button);
}
