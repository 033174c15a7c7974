// Unit tests of the menu tree's marks and number checks (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkNumber, valueDescription } from "../out/menuModel.mjs";

const entry = (fields) => ({ kind: "config", visible: true, assignable: [], hasChildren: false, ...fields });

test("menuconfig's marks", () => {
  assert.equal(valueDescription(entry({ type: "tristate", value: "m" })), "<M>");
  assert.equal(valueDescription(entry({ type: "tristate", value: "n" })), "< >");
  assert.equal(valueDescription(entry({ type: "bool", value: "y" })), "[*]");
  assert.equal(valueDescription(entry({ type: "bool", value: "y", inChoice: true })), "(X)");
  assert.equal(valueDescription(entry({ type: "int", value: "17" })), "(17)");
  assert.equal(valueDescription(entry({ kind: "choice", type: "bool", value: "IOSCHED_DEADLINE" })), "(IOSCHED_DEADLINE)");
  assert.equal(valueDescription(entry({ kind: "menu" })), "");
});

test("numbers are checked for their form and range", () => {
  const shift = entry({ type: "int", range: ["12", "25"] });
  assert.equal(checkNumber(shift, "17"), undefined);
  assert.equal(checkNumber(shift, "26"), "out of range [12, 25]");
  assert.equal(checkNumber(shift, "017"), "a decimal number");
  assert.equal(checkNumber(shift, "x"), "a decimal number");
  const base = entry({ type: "hex", range: ["0x1000", "0x2000"] });
  assert.equal(checkNumber(base, "1800"), undefined);
  assert.equal(checkNumber(base, "0x2001"), "out of range [0x1000, 0x2000]");
  assert.equal(checkNumber(base, "0xzz"), "a hexadecimal number");
  assert.equal(checkNumber(entry({ type: "string" }), "anything"), undefined);
  assert.equal(checkNumber(entry({ type: "int" }), "-5"), undefined);
});
