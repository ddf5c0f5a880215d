/** How many entries the log keeps; older ones drop off the end. */
const MAX_ENTRIES = 200;

export interface EventLog {
  add(kind: string, name: string, detail?: unknown): void;
  clear(): void;
}

const clock = (date: Date) => date.toTimeString().slice(0, 8);

/** The live log of the element's events, newest first. */
export function createEventLog(list: HTMLOListElement): EventLog {
  return {
    add(kind, name, detail) {
      const item = document.createElement('li');
      item.dataset.kind = kind;
      item.dataset.event = name;
      const time = document.createElement('time');
      time.textContent = clock(new Date());
      const label = document.createElement('span');
      label.className = 'name';
      label.textContent = name;
      item.append(time, label);
      if (detail !== undefined) {
        const text = document.createElement('span');
        text.className = 'detail';
        text.textContent = typeof detail === 'string' ? detail : JSON.stringify(detail);
        item.append(text);
      }
      list.prepend(item);
      while (list.children.length > MAX_ENTRIES) list.lastElementChild?.remove();
    },
    clear() {
      list.replaceChildren();
    },
  };
}
