/**
 * The three engines the end-to-end scenarios run in, each from Debian: see ./types.ts for the
 * interface a scenario is written against. `ENGINES` lists them with their tools; a missing
 * browser fails under CI=true and is skipped, loudly, elsewhere (../tools.ts).
 * `E2E_ENGINES=chromium,firefox` narrows a local run.
 */
import { chromiumTool, firefoxTool, webkitTools, type Tool } from '../tools.js';
import { CHROMIUM_SUPPORT, launchChromiumEngine } from './chromium.js';
import { FIREFOX_SUPPORT, launchFirefoxEngine } from './firefox.js';
import type { EngineBrowser, EngineName, EngineSupport, LaunchOptions } from './types.js';
import { launchWebKitEngine, WEBKIT_SUPPORT } from './webkit.js';

export * from './types.js';

export interface Engine {
  name: EngineName;
  /** Whether its binaries are there (always true under CI=true, which fails without them). */
  available: boolean;
  /** What the engine's driver can do (the same as its browsers' `supports`), known before launch. */
  supports: EngineSupport;
  launch(options?: LaunchOptions): Promise<EngineBrowser>;
}

const ALL: readonly EngineName[] = ['chromium', 'firefox', 'webkit'];

function chosen(): readonly EngineName[] {
  const asked = process.env.E2E_ENGINES?.split(',').map((name) => name.trim()).filter(Boolean);
  if (!asked?.length) return ALL;
  const unknown = asked.filter((name) => !ALL.includes(name as EngineName));
  if (unknown.length) throw new Error(`E2E_ENGINES names unknown engines: ${unknown.join(', ')} (known: ${ALL.join(', ')})`);
  if (process.env.CI === 'true' && asked.length < ALL.length) throw new Error('E2E_ENGINES cannot leave engines out under CI=true');
  return asked as EngineName[];
}

const unavailable = (tool: Tool) => () => Promise.reject(new Error(`${tool.name} is not installed`));

/** Engine `name` with its tools looked up now (once per test file). */
export function engine(name: EngineName): Engine {
  if (name === 'chromium') {
    const tool = chromiumTool();
    return { name, available: tool.available, supports: CHROMIUM_SUPPORT, launch: tool.available ? (options) => launchChromiumEngine(tool.path, options) : unavailable(tool) };
  }
  if (name === 'firefox') {
    const tool = firefoxTool();
    return { name, available: tool.available, supports: FIREFOX_SUPPORT, launch: tool.available ? (options) => launchFirefoxEngine(tool.path, options) : unavailable(tool) };
  }
  const tools = webkitTools();
  return {
    name,
    available: tools.available,
    supports: WEBKIT_SUPPORT,
    launch: tools.available ? (options) => launchWebKitEngine({ driver: tools.path, minibrowser: tools.minibrowser, xvfb: tools.xvfb }, options) : unavailable(tools),
  };
}

/** The engines of this run (all three unless `E2E_ENGINES` narrows a local run), for `describe.each`. */
export const engines = (): Engine[] => chosen().map(engine);
