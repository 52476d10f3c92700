import { describe, expect, it } from "vitest";
import { admitted, NODE_NAME } from "../src/defaults";
import { buildRequest, initialState } from "../src/sim";
import type { Pod } from "../../wasm/types/podplan";

describe("the admitted pod", () => {
  const pod: Pod = { metadata: { name: "web" }, spec: { containers: [{ name: "app", image: "nginx" }] } };

  it("gets a namespace, a stable uid and a node", () => {
    const a = admitted(pod);
    expect(a.metadata).toMatchObject({ name: "web", namespace: "default" });
    expect(a.metadata!.uid).toBe("playground-default-web");
    expect(admitted(pod).metadata!.uid).toBe(a.metadata!.uid);
    expect(admitted({ ...pod, metadata: { name: "other" } }).metadata!.uid).not.toBe(a.metadata!.uid);
    expect(a.spec!.nodeName).toBe(NODE_NAME);
    // Field defaulting is the engine's job (apiDefaults), not the page's.
    expect(a.spec!.restartPolicy).toBeUndefined();
    expect(pod.metadata!.namespace).toBeUndefined();
  });

  it("keeps what the manifest says", () => {
    const a = admitted({ metadata: { name: "x", namespace: "ns", uid: "u" }, spec: { nodeName: "n", containers: [] } });
    expect([a.metadata!.namespace, a.metadata!.uid, a.spec!.nodeName]).toEqual(["ns", "u", "n"]);
  });

  it("every request asks the engine for the API server's defaults", () => {
    const req = buildRequest(initialState(pod), pod);
    expect(req.apiDefaults).toBe(true);
    expect(req.node).toMatchObject({ name: NODE_NAME });
  });
});
