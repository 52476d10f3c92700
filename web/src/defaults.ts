// The pod as the API server would store it, and the node it runs on.
//
// podplan takes the pod exactly as served (not defaulted: an absent field is absent), as
// the kubelet receives it. A manifest as people write it lacks what the API server fills
// in on create (pkg/apis/core/v1/defaults.go), and the kubelet relies on some of it (e.g.
// a nil enableServiceLinks is a CreateContainerConfigError). So the playground applies
// the usual defaults before it asks the engine, and schedules the pod on its one node.
// The request tab shows the result.

import type { ContainerSpec, JsonObject, Pod } from "./types";

/** The node every playground pod runs on. */
export const NODE_NAME = "playground-node";
export const NODE_IP = "192.168.0.10";

/** The node/kubelet facts sent with every request (see docs/node-context.md). */
export const NODE_CONTEXT: JsonObject = {
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

function setDefault(o: Obj, key: string, value: unknown) {
  if (o[key] === undefined) o[key] = value;
}

/** `Always` for `:latest` or untagged images, else `IfNotPresent` (SetDefaults_Container). */
export function defaultPullPolicy(image: unknown): string {
  if (typeof image !== "string") return "IfNotPresent";
  if (image.includes("@")) return "IfNotPresent";
  const last = image.slice(image.lastIndexOf("/") + 1);
  const colon = last.lastIndexOf(":");
  return colon < 0 || last.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent";
}

function probeDefaults(p: unknown) {
  if (!isObj(p)) return;
  setDefault(p, "timeoutSeconds", 1);
  setDefault(p, "periodSeconds", 10);
  setDefault(p, "successThreshold", 1);
  setDefault(p, "failureThreshold", 3);
  if (isObj(p.httpGet)) {
    setDefault(p.httpGet, "path", "/");
    setDefault(p.httpGet, "scheme", "HTTP");
  }
}

function containerDefaults(c: unknown, hostNetwork: boolean) {
  if (!isObj(c)) return;
  setDefault(c, "terminationMessagePath", "/dev/termination-log");
  setDefault(c, "terminationMessagePolicy", "File");
  setDefault(c, "imagePullPolicy", defaultPullPolicy(c.image));
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) probeDefaults(c[probe]);
  if (Array.isArray(c.ports))
    for (const port of c.ports)
      if (isObj(port)) {
        setDefault(port, "protocol", "TCP");
        if (hostNetwork) setDefault(port, "hostPort", port.containerPort);
      }
  // Requests default to limits where only limits are given.
  const r = c.resources;
  if (isObj(r) && isObj(r.limits)) {
    const requests: Obj = isObj(r.requests) ? r.requests : {};
    for (const [k, v] of Object.entries(r.limits)) setDefault(requests, k, v);
    if (Object.keys(requests).length) r.requests = requests;
  }
  if (Array.isArray(c.env))
    for (const e of c.env) if (isObj(e) && isObj(e.valueFrom) && isObj(e.valueFrom.fieldRef)) setDefault(e.valueFrom.fieldRef, "apiVersion", "v1");
}

/** A deterministic uid for pods that have none (the API server would assign one). */
function uidFor(namespace: string, name: string): string {
  let h = 0x811c9dc5;
  for (const ch of `${namespace}/${name}`) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  const hex = h.toString(16).padStart(8, "0");
  return `${hex}-0000-4000-8000-${hex}${hex.slice(0, 4)}`;
}

/** The pod with the API server's defaults and the scheduler's node assignment applied. */
export function apiDefaults(pod0: Pod): Pod {
  const pod = structuredClone(pod0) as Obj;
  setDefault(pod, "apiVersion", "v1");
  setDefault(pod, "kind", "Pod");
  if (!isObj(pod.metadata)) pod.metadata = {};
  const meta = pod.metadata as Obj;
  setDefault(meta, "namespace", "default");
  if (typeof meta.name === "string") setDefault(meta, "uid", uidFor(String(meta.namespace), meta.name));
  const spec = pod.spec;
  if (isObj(spec)) {
    setDefault(spec, "restartPolicy", "Always");
    setDefault(spec, "terminationGracePeriodSeconds", 30);
    setDefault(spec, "dnsPolicy", "ClusterFirst");
    setDefault(spec, "securityContext", {});
    setDefault(spec, "schedulerName", "default-scheduler");
    setDefault(spec, "enableServiceLinks", true);
    setDefault(spec, "nodeName", NODE_NAME);
    const hostNetwork = spec.hostNetwork === true;
    for (const list of ["initContainers", "containers", "ephemeralContainers"])
      if (Array.isArray(spec[list])) for (const c of spec[list] as ContainerSpec[]) containerDefaults(c, hostNetwork);
  }
  return pod as Pod;
}
