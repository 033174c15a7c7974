// Which kconfig-ls server to run, in this order:
//   1. kconfig.server.path: an executable, run as `<path> serve`;
//   2. kconfig.server.python with kconfig-ls installed: `<python> -m kconfig_ls serve`;
//   3. the server bundled in the extension (bundled/libs: kconfig_ls and its
//      pure-Python dependencies) run by kconfig.server.python, else by
//      `python3` on PATH, which must be Python 3.11 or newer;
//   4. `kconfig-ls` on PATH.
// The bundled server comes before PATH because it is the version the
// extension was built with.  Pure logic (no vscode import) so it is tested
// with node's own test runner; the Probe is the only contact with the system.

import { spawnSync } from "child_process";
import * as fs from "fs";
import * as pathModule from "path";

export const MIN_PYTHON: [number, number] = [3, 11];

export interface ServerSettings {
  path?: string;
  python?: string;
}

/** What a Python interpreter says of itself. */
export interface PythonInfo {
  version: [number, number, number];
  /** kconfig_ls.__version__ when the interpreter can import kconfig_ls on its own. */
  kconfigLs?: string;
}

export interface Probe {
  /** Is this path an executable file? */
  isExecutable(path: string): boolean;
  /** The full path of a command found on PATH, if any. */
  which(name: string): string | undefined;
  /** Run the interpreter once to learn its version (undefined: it does not run). */
  python(path: string): PythonInfo | undefined;
}

export type ServerSource = "kconfig.server.path" | "kconfig.server.python" | "bundled" | "PATH";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Extra environment: the bundled server's PYTHONPATH. */
  env?: Record<string, string>;
  source: ServerSource;
  /** One line for the Output channel: which server, from where, which version. */
  description: string;
}

export interface LocateError {
  error: string;
}

const INSTALL_HINT =
  "Install kconfig-ls (in its repository: scripts/setup, which creates .venv/bin/kconfig-ls) " +
  "and set kconfig.server.path to that executable, or kconfig.server.python to a Python that has it.";
const PYTHON_HINT =
  `The server bundled in this extension needs Python ${MIN_PYTHON.join(".")} or newer: ` +
  "install it (Debian/Ubuntu: sudo apt-get install python3) or set kconfig.server.python to one.";

function resolve(name: string, probe: Probe): string | undefined {
  if (name.includes("/")) {
    return probe.isExecutable(name) ? name : undefined;
  }
  return probe.which(name);
}

function versionText(info: PythonInfo): string {
  return info.version.join(".");
}

function newEnough(info: PythonInfo): boolean {
  const [major, minor] = info.version;
  return major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1]);
}

function bundledCommand(python: string, info: PythonInfo, libs: string, bundledVersion: string): ServerCommand {
  return {
    command: python,
    args: ["-m", "kconfig_ls", "serve"],
    env: { PYTHONPATH: libs, PYTHONNOUSERSITE: "1" },
    source: "bundled",
    description: `kconfig-ls ${bundledVersion} bundled in the extension (${libs}), run by ${python} (Python ${versionText(info)})`,
  };
}

/** The bundled server, when the extension carries one. */
export interface Bundle {
  libs: string;
  version: string;
}

export function locateServer(settings: ServerSettings, probe: Probe, bundle?: Bundle): ServerCommand | LocateError {
  const path = (settings.path ?? "").trim();
  if (path) {
    const found = resolve(path, probe);
    if (!found) {
      return { error: `kconfig.server.path is "${path}", which is not an executable file. ${INSTALL_HINT}` };
    }
    return { command: found, args: ["serve"], source: "kconfig.server.path", description: `${found} (kconfig.server.path)` };
  }
  const python = (settings.python ?? "").trim();
  if (python) {
    const found = resolve(python, probe);
    const info = found ? probe.python(found) : undefined;
    if (!found || !info) {
      return { error: `kconfig.server.python is "${python}", which is not a Python interpreter that runs. ${PYTHON_HINT}` };
    }
    if (info.kconfigLs) {
      return {
        command: found,
        args: ["-m", "kconfig_ls", "serve"],
        source: "kconfig.server.python",
        description: `kconfig-ls ${info.kconfigLs} installed in ${found} (kconfig.server.python, Python ${versionText(info)})`,
      };
    }
    if (!newEnough(info)) {
      return { error: `kconfig.server.python is Python ${versionText(info)} without kconfig-ls. ${PYTHON_HINT}` };
    }
    if (bundle) return bundledCommand(found, info, bundle.libs, bundle.version);
    return { error: `kconfig.server.python (${found}) cannot import kconfig_ls. ${INSTALL_HINT}` };
  }
  let pythonProblem = "no python3 was found on PATH";
  if (bundle) {
    const python3 = probe.which("python3");
    const info = python3 ? probe.python(python3) : undefined;
    if (python3 && info && newEnough(info)) return bundledCommand(python3, info, bundle.libs, bundle.version);
    if (python3) pythonProblem = info ? `python3 on PATH is Python ${versionText(info)}` : `${python3} does not run`;
  }
  const onPath = probe.which("kconfig-ls");
  if (onPath) {
    return { command: onPath, args: ["serve"], source: "PATH", description: `${onPath} (kconfig-ls on PATH)` };
  }
  if (bundle) return { error: `kconfig-ls cannot start: ${pythonProblem}. ${PYTHON_HINT}` };
  return { error: `kconfig-ls was not found on PATH. ${INSTALL_HINT}` };
}

/** The interpreter's self-description, as JSON on one line; kconfig_ls is
 * looked up with the interpreter's own sys.path (PYTHONPATH cleared). */
const PYTHON_PROBE =
  "import json, sys\n" +
  "try:\n    import kconfig_ls; k = kconfig_ls.__version__\nexcept Exception:\n    k = None\n" +
  "print(json.dumps({'version': list(sys.version_info[:3]), 'kconfigLs': k}))";

/** A Probe over the real file system, PATH and interpreters. */
export function nodeProbe(env: NodeJS.ProcessEnv = process.env): Probe {
  const isExecutable = (p: string): boolean => {
    try {
      if (!fs.statSync(p).isFile()) return false;
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  return {
    isExecutable,
    which(name: string): string | undefined {
      for (const dir of (env.PATH ?? "").split(pathModule.delimiter)) {
        if (dir && isExecutable(pathModule.join(dir, name))) {
          return pathModule.join(dir, name);
        }
      }
      return undefined;
    },
    python(path: string): PythonInfo | undefined {
      const probeEnv = { ...env };
      delete probeEnv.PYTHONPATH;
      delete probeEnv.PYTHONHOME;
      const run = spawnSync(path, ["-c", PYTHON_PROBE], { env: probeEnv, encoding: "utf8", timeout: 15_000 });
      if (run.status !== 0 || !run.stdout) return undefined;
      try {
        const parsed = JSON.parse(run.stdout.trim().split("\n").pop() ?? "");
        const version = parsed.version as [number, number, number];
        return parsed.kconfigLs ? { version, kconfigLs: String(parsed.kconfigLs) } : { version };
      } catch {
        return undefined;
      }
    },
  };
}

/** The bundle the extension carries (bundled/libs/kconfig_ls), if any. */
export function findBundle(extensionRoot: string): Bundle | undefined {
  const libs = pathModule.join(extensionRoot, "bundled", "libs");
  const init = pathModule.join(libs, "kconfig_ls", "__init__.py");
  try {
    const match = /__version__\s*=\s*"([^"]+)"/.exec(fs.readFileSync(init, "utf8"));
    return { libs, version: match ? match[1] : "unknown" };
  } catch {
    return undefined;
  }
}
