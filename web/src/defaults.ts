// What the cluster adds to a manifest before the kubelet sees the pod, and the node the
// pod runs on.
//
// podplan decides on the pod exactly as served. A manifest as people write it lacks what
// the API server fills in (a nil enableServiceLinks, for one, is a
// CreateContainerConfigError in the kubelet). The engine applies the API server's
// defaulting itself when a request says `apiDefaults: true`, which every playground request
// does. What is left to the page is what is not field defaulting: the namespace, the uid
// the API server assigns, and the scheduler's node assignment.

import type { NodeContext, Pod } from "../../wasm/types/podplan";

/** The node every playground pod runs on. */
export const NODE_NAME = "playground-node";
export const NODE_IP = "192.168.0.10";

/** The node/kubelet facts sent with every request (see docs/node-context.md). */
export const NODE_CONTEXT: NodeContext = {
  name: NODE_NAME,
  hostIPs: [NODE_IP],
  kubelet: { clusterDomain: "cluster.local", clusterDNS: ["10.96.0.10"] },
  services: [
    {
      metadata: { name: "kubernetes", namespace: "default" },
      spec: { clusterIP: "10.96.0.1", ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }] },
    },
  ],
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

/** A stable uid for pods that have none (the API server would assign one). */
function uidFor(namespace: string, name: string): string {
  return `playground-${namespace}-${name}`;
}

/** The pod as created and scheduled: namespace, uid and node name filled in if absent. */
export function admitted(pod0: Pod): Pod {
  const pod = structuredClone(pod0) as Obj;
  if (!isObj(pod.metadata)) pod.metadata = {};
  const meta = pod.metadata as Obj;
  if (meta.namespace === undefined) meta.namespace = "default";
  if (meta.uid === undefined && typeof meta.name === "string") meta.uid = uidFor(String(meta.namespace), meta.name);
  if (isObj(pod.spec) && pod.spec.nodeName === undefined) pod.spec.nodeName = NODE_NAME;
  return pod as Pod;
}
