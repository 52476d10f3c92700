import { describe, expect, it } from "vitest";
import { convertText, locatePath, parsePodText, splitPath } from "../src/podtext";

const yaml = `apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    example.com/team: shop
spec:
  containers:
  - name: app
    image: nginx
    resources:
      limits:
        cpu: 1
        memory: 128Mi
  - name: app
    image: busybox
`;

function at(text: string, from: number, to: number) {
  return text.slice(from, to);
}

describe("pod text", () => {
  it("parses YAML and turns numeric quantities into strings", () => {
    const r = parsePodText(yaml, "yaml");
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.pod.spec!.containers[0]!.resources!.limits).toEqual({ cpu: "1", memory: "128Mi" });
  });

  it("reports YAML and JSON syntax errors with positions", () => {
    const bad = "spec:\n  containers: [\n";
    const r = parsePodText(bad, "yaml");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.from).toBeGreaterThan(0);
    const j = parsePodText('{"spec": {"containers": [}', "json");
    expect(j.ok).toBe(false);
    if (!j.ok) {
      expect(j.errors[0]!.message).toMatch(/^JSON/);
      expect(j.errors[0]!.from).toBeGreaterThan(10);
    }
    const notAPod = parsePodText("- 1\n- 2\n", "yaml");
    expect(notAPod.ok).toBe(false);
  });

  it("splits engine paths", () => {
    expect(splitPath("pod.spec.containers[1].name")).toEqual(["pod", "spec", "containers", 1, "name"]);
  });

  it("maps engine paths to positions in the text", () => {
    const r = parsePodText(yaml, "yaml");
    if (!r.ok) throw new Error("parse");
    const name = locatePath(r.doc, "pod.spec.containers[1].name")!;
    expect(at(yaml, name.from, name.to)).toBe("app");
    expect(name.from).toBe(yaml.lastIndexOf("app"));
    expect(name.exact).toBe(true);
    // A missing field points at the deepest part that exists.
    const missing = locatePath(r.doc, "pod.spec.containers[0].imagePullPolicy")!;
    expect(missing.exact).toBe(false);
    expect(at(yaml, missing.from, missing.to)).toContain("name: app");
    // Keys with dots (annotations).
    const ann = locatePath(r.doc, "pod.metadata.annotations.example.com/team")!;
    expect(at(yaml, ann.from, ann.to)).toBe("shop");
    // Not about the pod at all.
    expect(locatePath(r.doc, "runtimeStatus.containerStatuses[0]")).toBeUndefined();
  });

  it("maps paths in JSON text too", () => {
    const json = convertText(yaml, "yaml", "json")!;
    const r = parsePodText(json, "json");
    if (!r.ok) throw new Error("parse");
    const img = locatePath(r.doc, "pod.spec.containers[1].image")!;
    expect(at(json, img.from, img.to)).toBe('"busybox"');
  });

  it("converts between formats", () => {
    const json = convertText(yaml, "yaml", "json")!;
    expect(JSON.parse(json).spec.containers[1].image).toBe("busybox");
    const back = convertText(json, "json", "yaml")!;
    expect(parsePodText(back, "yaml").ok).toBe(true);
    expect(convertText("a: [", "yaml", "json")).toBeUndefined();
  });
});
