import { unsafeCSS } from '@lit/reactive-element';

// One static string: unsafeCSS instead of the css tag keeps the tag's interpolation checks (and
// their long error text) out of the 10 KB bundle. Nothing is interpolated, so nothing is unsafe.
export const styles = unsafeCSS(`
  :host {
    display: block;
    border: var(--embedded-dashboard-border, none);
    border-radius: var(--embedded-dashboard-radius, 0);
    background: var(--embedded-dashboard-background, transparent);
    overflow: hidden;
  }
  [part='base'] {
    position: relative;
    /* Focus lands here after retry (§5.2): keep its ring inside the host's overflow clip. */
    outline-offset: -3px;
  }
  /* Reserve the space until the dashboard shows, so nothing below jumps: its height when known
     (reported, or remembered from an earlier view), else the minimum. */
  .reserve {
    min-height: var(--embedded-dashboard-height, var(--embedded-dashboard-min-height, 400px));
  }
  iframe,
  ::slotted(iframe) {
    display: block;
    width: 100%;
    height: var(--embedded-dashboard-height, var(--embedded-dashboard-min-height, 400px));
    border: 0;
  }
  iframe[hidden] {
    display: none;
  }
  .pending {
    visibility: hidden;
  }
  /* A frame loading a new token's URL, over the visible one until they swap. */
  .next {
    position: absolute;
    top: 0;
  }
  .overlay {
    position: absolute;
    inset: 0;
    display: flex;
    flex-direction: column;
    align-items: center;
    justify-content: center;
    gap: 12px;
    padding: 16px;
    color: var(--embedded-dashboard-color, inherit);
    font: var(--embedded-dashboard-font, inherit);
    text-align: center;
  }
  .skeleton {
    background: var(--embedded-dashboard-skeleton-color, #e8e8ec);
    animation: pulse 1.5s ease-in-out infinite;
  }
  @keyframes pulse {
    50% {
      opacity: 0.5;
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .skeleton {
      animation: none;
    }
  }
  [part='status'] {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
  }
  button {
    font: inherit;
    padding: 6px 16px;
    cursor: pointer;
    color: var(--embedded-dashboard-button-color, #fff);
    background: var(--embedded-dashboard-accent, #2563eb);
    border: 0;
    border-radius: 4px;
  }
`);
