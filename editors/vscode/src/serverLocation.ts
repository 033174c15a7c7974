// Where the kconfig-ls server is: the kconfig.server.path setting (an
// executable), else kconfig.server.python (`<python> -m kconfig_ls serve`),
// else `kconfig-ls` on PATH.  Pure logic (no vscode import) so it is tested
// with node's own test runner.

import * as fs from "fs";
import * as pathModule from "path";

export interface ServerSettings {
  path?: string;
  python?: string;
}

export interface Probe {
  /** Is this path an executable file? */
  isExecutable(path: string): boolean;
  /** The full path of a command found on PATH, if any. */
  which(name: string): string | undefined;
}

export interface ServerCommand {
  command: string;
  args: string[];
  source: "kconfig.server.path" | "kconfig.server.python" | "PATH";
}

export interface LocateError {
  error: string;
}

const INSTALL_HINT =
  "Install kconfig-ls (in its repository: scripts/setup, which creates .venv/bin/kconfig-ls) " +
  "and set kconfig.server.path to that executable, or kconfig.server.python to a Python that has it.";

function resolve(name: string, probe: Probe): string | undefined {
  if (name.includes("/")) {
    return probe.isExecutable(name) ? name : undefined;
  }
  return probe.which(name);
}

export function locateServer(settings: ServerSettings, probe: Probe): ServerCommand | LocateError {
  const path = (settings.path ?? "").trim();
  if (path) {
    const found = resolve(path, probe);
    if (!found) {
      return { error: `kconfig.server.path is "${path}", which is not an executable file. ${INSTALL_HINT}` };
    }
    return { command: found, args: ["serve"], source: "kconfig.server.path" };
  }
  const python = (settings.python ?? "").trim();
  if (python) {
    const found = resolve(python, probe);
    if (!found) {
      return { error: `kconfig.server.python is "${python}", which is not an executable file. ${INSTALL_HINT}` };
    }
    return { command: found, args: ["-m", "kconfig_ls", "serve"], source: "kconfig.server.python" };
  }
  const onPath = probe.which("kconfig-ls");
  if (onPath) {
    return { command: onPath, args: ["serve"], source: "PATH" };
  }
  return { error: `kconfig-ls was not found on PATH. ${INSTALL_HINT}` };
}

/** A Probe over the real file system and PATH. */
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
  };
}
