import { describe, expect, it } from "vitest";
import { containerHash, hashedJson } from "../src/hash";

describe("containerHash", () => {
  it("matches the kubelet's known values (core/src/hash.rs)", () => {
    expect(containerHash("test_container", "foo/image:v1")).toBe(0x8e45cbd0);
    expect(containerHash("foo", "bar")).toBe(0x11a6d6d6);
    expect(containerHash("foo1", "busybox")).toBe(1_043_764_558);
    expect(containerHash("debug", "busybox")).toBe(1_270_942_399);
  });
  it("escapes like Go's encoding/json", () => {
    expect(hashedJson("a<b", 'x"y')).toBe('{"image":"x\\"y","name":"a\\u003cb"}');
    expect(hashedJson("\u0001", "é")).toBe('{"image":"é","name":"\\u0001"}');
  });
});
