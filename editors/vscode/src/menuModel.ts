// The configurator's entries as the server gives them, and what the tree
// view shows of them: pure functions (no vscode), unit-tested with node.

/** One entry as `kconfig/menu` and `kconfig/search` give it. */
export interface MenuEntry {
  id: number;
  kind: "menu" | "config" | "menuconfig" | "choice" | "comment";
  prompt: string | null;
  symbol?: string;
  type?: string;
  value?: string | null;
  visible: boolean;
  assignable: string[];
  modified: boolean;
  hasChildren: boolean;
  inChoice?: boolean;
  range?: [string, string];
  location: { uri: string; line: number };
  path?: string[];
  parents?: number[];
}

/** menuconfig's marks in front of an entry's prompt. */
export function valueDescription(entry: MenuEntry): string {
  const value = entry.value ?? "";
  if (entry.kind === "menu" || entry.kind === "comment") return "";
  if (entry.kind === "choice") return value ? `(${value})` : "";
  if (entry.type === "tristate") return value === "y" ? "<*>" : value === "m" ? "<M>" : "< >";
  if (entry.type === "bool" && entry.inChoice) return value === "y" ? "(X)" : "( )";
  if (entry.type === "bool") return value === "y" ? "[*]" : "[ ]";
  return `(${value})`;
}

/** Whether `text` is a value `entry` (an int or hex symbol) accepts:
 * well formed and in its range.  Returns the complaint, or undefined. */
export function checkNumber(entry: MenuEntry, text: string): string | undefined {
  if (entry.type === "int") {
    if (!/^-?(0|[1-9][0-9]*)$/.test(text)) return "a decimal number";
  } else if (entry.type === "hex") {
    if (!/^(0[xX])?[0-9a-fA-F]+$/.test(text)) return "a hexadecimal number";
  } else {
    return undefined;
  }
  if (entry.range) {
    const base = entry.type === "hex" ? 16 : 10;
    const parse = (t: string) => BigInt(base === 16 ? (/^0[xX]/.test(t) ? t : `0x${t}`) : t);
    const [low, high] = entry.range;
    const value = parse(text);
    if (value < parse(low) || value > parse(high)) return `out of range [${low}, ${high}]`;
  }
  return undefined;
}
