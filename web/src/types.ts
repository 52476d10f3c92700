// TypeScript shapes of the plan contract (shared/contract/README.md, core/src/plan.rs,
// core/src/request.rs, core/src/runtime.rs). Field names are exactly the contract's.
// Parts the engine owns but has not pinned down yet (steps, configs) are typed loosely.

/** A Kubernetes object as JSON; the playground only reads a few fields. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The subset of `v1.Container` the playground reads (the engine reads the rest). */
export interface ContainerSpec {
  name: string;
  image?: string;
  restartPolicy?: string;
  restartPolicyRules?: Array<{ action: string; exitCodes?: { operator: string; values?: number[] } }>;
  startupProbe?: JsonObject;
  livenessProbe?: JsonObject;
  readinessProbe?: JsonObject;
  resources?: ResourceRequirements;
  [key: string]: unknown;
}

export interface ResourceRequirements {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
  [key: string]: unknown;
}

export interface PodSpec {
  restartPolicy?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  initContainers?: ContainerSpec[];
  containers: ContainerSpec[];
  ephemeralContainers?: ContainerSpec[];
  resources?: ResourceRequirements;
  [key: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; [key: string]: unknown };
  spec?: PodSpec;
  status?: JsonObject;
  [key: string]: unknown;
}

export type SandboxStateName = "SANDBOX_READY" | "SANDBOX_NOTREADY";
export type NamespaceMode = "POD" | "CONTAINER" | "NODE" | "TARGET";

/** CRI `PodSandboxStatus` (proto3 JSON). */
export interface SandboxStatus {
  id: string;
  metadata?: { name: string; uid: string; namespace: string; attempt: number };
  state: SandboxStateName;
  /** Nanoseconds since the epoch. */
  createdAt: number;
  network?: { ip: string; additionalIps?: Array<{ ip: string }> };
  linux?: { namespaces?: { options?: { network?: NamespaceMode; pid?: NamespaceMode; ipc?: NamespaceMode; targetId?: string } } };
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  runtimeHandler?: string;
}

export type ContainerStateName = "created" | "running" | "exited" | "unknown";

/** One container as the runtime reports it (`kubecontainer.Status`). */
export interface ContainerStatus {
  id: string;
  name: string;
  podSandboxId?: string;
  state: ContainerStateName;
  createdAt?: string;
  startedAt?: string;
  finishedAt?: string;
  exitCode?: number;
  image?: string;
  imageId?: string;
  imageRef?: string;
  hash?: number;
  restartCount?: number;
  reason?: string;
  message?: string;
  resources?: Json;
}

export interface RuntimeStatus {
  id: string;
  name: string;
  namespace: string;
  ips?: string[];
  sandboxStatuses: SandboxStatus[];
  containerStatuses: ContainerStatus[];
}

export type ProbeResult = "success" | "failure" | "unknown";
export interface ProbeResults {
  liveness?: ProbeResult;
  startup?: ProbeResult;
}

export interface BackoffRecord {
  key: string;
  container?: string;
  delaySeconds: number;
  lastUpdate: string;
}

export interface ActuatedResources {
  containers: Record<string, ResourceRequirements>;
  pod?: ResourceRequirements;
}

/** The plan request (contract + the `now` / `backoff` extensions). */
export interface PlanRequest {
  pod: Pod;
  runtimeStatus?: RuntimeStatus;
  probes?: Record<string, ProbeResults>;
  featureGates?: Record<string, boolean>;
  actuatedResources?: ActuatedResources;
  restartAllContainers?: boolean;
  node?: JsonObject;
  now?: string;
  /** Extension: the engine applies the API server's defaulting to `pod` first. */
  apiDefaults?: boolean;
  backoff?: BackoffRecord[];
}

export interface ContainerToKill {
  name: string;
  reason?: string;
  message?: string;
}

export interface ResizeResources {
  memoryLimit: number;
  memoryRequest: number;
  cpuLimit: number;
  cpuRequest: number;
}

export interface ContainerToUpdate {
  name: string;
  containerId: string;
  desired: ResizeResources;
  current: ResizeResources;
}

export interface ContainerToReset {
  name: string;
  containerId: string;
  kill: boolean;
}

export interface PodActions {
  killPod: boolean;
  createSandbox: boolean;
  sandboxId: string;
  attempt: number;
  initContainersToStart: number[];
  containersToStart: number[];
  containersToKill: Record<string, ContainerToKill>;
  ephemeralContainersToStart: number[];
  containersToUpdate?: Record<string, ContainerToUpdate[]> | null;
  updatePodResources: boolean;
  updatePodLevelResources: boolean;
  containersToReset?: ContainerToReset[];
}

export interface Decision {
  action: string;
  container?: string;
  reason: string;
  message: string;
}

/** One CRI operation. Only `op` is fixed by the contract; the rest is read tolerantly. */
export interface Step {
  op: string;
  [key: string]: unknown;
}

export interface PlanEvent {
  type: string;
  reason: string;
  message: string;
  [key: string]: unknown;
}

export interface ContainerError {
  container: string;
  reason: string;
  message: string;
}

export interface HeldBack {
  container: string;
  waitSeconds: number;
  [key: string]: unknown;
}

export interface Warning {
  path: string;
  message: string;
}

export interface ContainerConfigEntry {
  name: string;
  type: string;
  restartCount: number;
  config: JsonObject;
}

export interface Plan {
  actions: PodActions;
  decisions?: Decision[];
  sandboxConfig?: JsonObject;
  containerConfigs?: ContainerConfigEntry[];
  steps?: Step[];
  events?: PlanEvent[];
  errors?: ContainerError[];
  heldBack?: HeldBack[];
  backoff?: BackoffRecord[];
  warnings?: Warning[];
}

export interface EngineError {
  kind: string;
  path: string;
  message: string;
}

export type PlanAnswer = Plan | { error: EngineError };

export function isError(answer: PlanAnswer): answer is { error: EngineError } {
  return typeof answer === "object" && answer !== null && "error" in answer;
}
