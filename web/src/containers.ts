// The containers of a pod and of the runtime, for the page's labels and controls. Reading
// only: what a container's kind means for the pod is the engine's business.

import type { Container, ContainerStatus, EphemeralContainer, Pod } from "../../wasm/types/podplan";
import type { SimState } from "./sim";

/** How the page labels a container. */
export type ContainerKind = "init" | "sidecar" | "regular" | "ephemeral";

/** Finds a container in the spec by name, with its label. */
export function findContainer(pod: Pod, name: string): { spec: Container | EphemeralContainer; kind: ContainerKind } | undefined {
  return specContainers(pod).find((c) => c.name === name);
}

/** Every container of the spec, in spec order (init, regular, ephemeral). */
export function specContainers(pod: Pod): Array<{ name: string; kind: ContainerKind; spec: Container | EphemeralContainer }> {
  const spec = pod.spec;
  if (!spec) return [];
  const list = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);
  return [
    ...list(spec.initContainers).map((c) => ({ name: c.name, kind: (c.restartPolicy === "Always" ? "sidecar" : "init") as ContainerKind, spec: c })),
    ...list(spec.containers).map((c) => ({ name: c.name, kind: "regular" as ContainerKind, spec: c })),
    ...list(spec.ephemeralContainers).map((c) => ({ name: c.name, kind: "ephemeral" as ContainerKind, spec: c })),
  ];
}

/** The newest instance of `name` that is still alive (running or created). */
export function liveContainer(state: SimState, name: string): ContainerStatus | undefined {
  return state.runtime.containerStatuses.find((c) => c.name === name && (c.state === "running" || c.state === "created"));
}
