// Type declarations for podplan-wasm: the plan contract (wire format v1) and the
// module's functions. Hand-written to match the contract
// (docs/contract-base.md, docs/contract.md) and the Rust types in core/src
// (request.rs, runtime.rs, plan.rs, error.rs). Kubernetes objects follow the
// API server's JSON (k8s-openapi, v1_37); only the fields the kubelet reads are spelled
// out, the rest are typed as plain JSON.
//
// The engine rejects fields it does not know, so these types have no index signatures
// except where the contract itself is open (CRI messages, generated configs, steps) and
// for the many source kinds of a `v1.Volume`.

// ---------------------------------------------------------------------------------
// The API.

/**
 * Computes what the kubelet would do on its next sync for `request`.
 * Never throws: bad input (including values that are not JSON) gives an
 * {@link ErrorAnswer}. `plan(r)` equals `JSON.parse(planJson(JSON.stringify(r)))`.
 */
export function plan(request: PlanRequest | Pod): PlanAnswer;

/**
 * {@link plan} on JSON text: the request as JSON, the answer as JSON text (a
 * {@link Plan} or an {@link ErrorAnswer}). Never throws.
 */
export function planJson(request: string): string;

/** Version facts of this build. */
export function version(): VersionInfo;
/** Completes a plan from the status of the sandbox it created (`RunPodSandbox`, then
 * `PodSandboxStatus`): the `dependsOnNewSandbox` configs and file steps regenerated
 * with its pod IPs. Never throws. */
export function complete(input: { request: PlanRequest; sandboxStatus: JsonObject }): PlanAnswer;
/** {@link complete} on JSON text. */
export function completeJson(input: string): string;

/**
 * Carries out `call.plan` on `call.request`'s runtime state with podplan's runtime
 * model (`podplan_core::sim::next_request`) at `request.now`; answers the request of the
 * next sync (runtime status, actuated resources, back-off records, probes of running
 * containers, `now`). Never throws.
 */
export function simApply(call: SimApplyCall): SimAnswer | ErrorAnswer;

/** {@link simApply} on JSON text. */
export function simApplyJson(call: string): string;

/**
 * Applies one scripted runtime event (`podplan_core::sim::Event`) to `call.request` at
 * its `now`. When the event cannot happen (the container is not running, there is no
 * sandbox) the request comes back unchanged with a `note`. Never throws.
 */
export function simEvent(call: SimEventCall): SimAnswer | ErrorAnswer;

/** {@link simEvent} on JSON text. */
export function simEventJson(call: string): string;

/**
 * A CRI config of a plan as the file crictl reads (`crictl runp`, `crictl create`):
 * proto field names, enums as numbers. Never throws.
 */
export function crictl(call: CrictlCall): CrictlAnswer | ErrorAnswer;

/** {@link crictl} on JSON text. */
export function crictlJson(call: string): string;

/** The input of {@link simApply}. */
export interface SimApplyCall {
  /** The request the plan was made for; it must carry `now`. */
  request: PlanRequest;
  plan: Plan;
}

/** The input of {@link simEvent}. */
export interface SimEventCall {
  request: PlanRequest;
  event: SimEvent;
}

/** The answer of {@link simApply} and {@link simEvent}. */
export interface SimAnswer {
  /** The request after the plan or the event. */
  request: PlanRequest;
  /** Why an event could not happen (the request is then unchanged). */
  note?: string;
  /** simApply: the plan changed the runtime (a PLEG event: the kubelet syncs again at once). */
  changed?: boolean;
}

/** Something that happens to the pod between two syncs (`podplan_core::sim::Event`). */
export type SimEvent =
  /** Virtual time passes (seconds, not negative). */
  | { type: "advance"; seconds: number }
  /** The newest running instance of a container exits. */
  | { type: "exit"; container: string; code: number }
  /** The prober records a result for a running container. */
  | { type: "probe"; container: string; probe: "liveness" | "startup" | "readiness"; result: ProbeResult }
  /** The latest sandbox dies with its running containers (exit 137). */
  | { type: "sandboxDies" }
  /** The latest sandbox loses its IP address. */
  | { type: "sandboxLosesIp" }
  /** The pod spec changes a container's image. */
  | { type: "setImage"; container: string; image: string }
  /** The registry fails the next `times` pulls of an image (all, until `pullWorks`, without `times`). */
  | { type: "pullFails"; image: string; fault: PullFault; times?: number }
  /** Pulls of an image work again. */
  | { type: "pullWorks"; image: string }
  /** The node's image garbage collection removes an image. */
  | { type: "removeImage"; image: string };

/** A scripted pull failure of the model registry. */
export type PullFault = "registryDown" | "notFound";

/** The input of {@link crictl}: exactly one config. */
export type CrictlCall = { sandboxConfig: PodSandboxConfig } | { containerConfig: CriContainerConfig };

/** The answer of {@link crictl}. */
export interface CrictlAnswer {
  crictl: JsonObject;
}

/** What `version()` returns. */
export interface VersionInfo {
  /** podplan's own version, e.g. `"0.1.0"`. */
  podplan: string;
  /** The plan contract version, e.g. `"1"`. */
  contract: string;
  /** The Kubernetes release whose kubelet is re-implemented, e.g. `"1.37"`. */
  kubernetes: string;
}

/** What `plan` answers: a plan, or a structured error (never both, never partial). */
export type PlanAnswer = Plan | ErrorAnswer;

// ---------------------------------------------------------------------------------
// Shared JSON helpers.

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** Any JSON object. */
export type JsonObject = { [key: string]: Json };
/** RFC 3339 time, e.g. `"2025-01-02T03:04:05Z"`. */
export type Time = string;
/** A Kubernetes quantity, e.g. `"100m"`, `"128Mi"`. */
export type Quantity = string;
/** Resource name → quantity. */
export type ResourceList = { [resource: string]: Quantity };

// ---------------------------------------------------------------------------------
// Request.

/** One request: everything the kubelet knows about a pod at the start of a sync. */
export interface PlanRequest {
  /** The API pod (`v1.Pod`), not API-defaulted: an absent field really is absent. */
  pod: Pod;
  /** Extension: apply the API server's defaulting to `pod` before deciding (default false). */
  apiDefaults?: boolean;
  /** What the runtime reports (`kubecontainer.PodStatus`). Absent = nothing exists yet. */
  runtimeStatus?: RuntimeStatus | null;
  /** Prober results by runtime container id (`type://id`). No entry = no result. */
  probes?: { [containerId: string]: ProbeResults };
  /** Extension: the status manager's cached status (the previous plan's `status`); read only for the plan's `status`. */
  previousStatus?: PodStatus | null;
  /** Extension: the kubelet's reason cache (the previous plan's `reasonCache`); read only for the plan's `status`. */
  reasonCache?: ReasonCache;
  /** Extension (issue 14): the node's images as `ImageStatus` reports them. Absent: every image counts as present. */
  images?: ImagesReport;
  /** Extension: results of the previous plan's `PullImage` steps (pass them once). */
  pullResults?: PullResultRecord[];
  /** Extension: the previous plan's `imageBackoff`. */
  imageBackoff?: ImageBackoffRecord[];
  /** Extension: the pod's resolved image pull secrets (`v1.Secret`). */
  pullSecrets?: JsonObject[];
  /** Extension: node keyring / credential-provider credentials by registry key. */
  nodeCredentials?: { [registry: string]: JsonObject[] };
  /** Extension: the pull-record check (default `{"allowAll": true}`). */
  pullRecords?: JsonObject;
  /** Feature-gate overrides of the 1.37 defaults. */
  featureGates?: { [gate: string]: boolean };
  /** The kubelet's actuated-resources checkpoint (resources last applied). */
  actuatedResources?: ActuatedResources | null;
  /** The pod is restarting all containers (`AllContainersRestarting` condition). */
  restartAllContainers?: boolean;
  /** Node and kubelet facts for CRI config generation (every key optional). */
  node?: NodeContext | null;
  /** Extension: the sync's wall-clock time, for crash-loop back-off. */
  now?: Time | null;
  /** Extension: crash-loop back-off records from the previous plan's `backoff`. */
  backoff?: BackoffRecord[];
  /** Extension: configs in strict proto3 JSON (env values base64). */
  proto3Json?: boolean;
}

/** Prober results recorded for one container. */
export interface ProbeResults {
  liveness?: ProbeResult | null;
  startup?: ProbeResult | null;
  /** Recorded only: readiness never restarts a container (extension). */
  readiness?: ProbeResult | null;
}

/** One probe result (`proberesults.Result`); `unknown` = pending. */
export type ProbeResult = "success" | "failure" | "unknown";

/** The actuated-resources checkpoint. A container without a record counts as zero. */
export interface ActuatedResources {
  containers?: { [containerName: string]: ResourceRequirements };
  pod?: ResourceRequirements | null;
}

/** A crash-loop back-off entry (client-go `flowcontrol.Backoff`), keyed as the kubelet keys it. */
export interface BackoffRecord {
  key: string;
  container?: string;
  delaySeconds: number;
  lastUpdate: Time;
}

/** Node and kubelet facts for CRI config generation (docs/node-context.md). Every key is optional. */
export interface NodeContext {
  name?: string | null;
  hostIPs?: string[];
  nodeIPs?: string[];
  allocatable?: ResourceList;
  memoryCapacity?: number | null;
  swapCapacity?: number | null;
  cgroupVersion?: "v1" | "v2" | null;
  swapControllerAvailable?: boolean | null;
  hugePageSizes?: string[];
  pageSize?: number | null;
  selinuxEnabled?: boolean | null;
  podCgroupParent?: string | null;
  cgroupDriver?: "cgroupfs" | "systemd" | null;
  kubelet?: KubeletSettings;
  hostDNS?: { servers?: string[]; searches?: string[]; options?: string[] } | null;
  /** `v1.Service` objects visible to the kubelet. */
  services?: JsonObject[];
  servicesSynced?: boolean | null;
  /** `v1.ConfigMap`s of the pod's namespace, by name. */
  configMaps?: { [name: string]: JsonObject };
  /** `v1.Secret`s of the pod's namespace, by name (data base64 as served). */
  secrets?: { [name: string]: JsonObject };
  volumes?: {
    [volumeName: string]: {
      hostPath?: string;
      readOnly?: boolean;
      selinuxRelabel?: boolean;
      blockDevicePath?: string | null;
      image?: string | null;
    };
  };
  /** Host path prepared for a subPath mount, by `"<containerName>/<volumeMountIndex>"`. */
  subPathHostPaths?: { [containerAndMountIndex: string]: string };
  images?: { [image: string]: { imageRef?: string | null; uid?: number | null; username?: string } };
  runtimeHandler?: string | null;
  runtimeHandlerFeatures?: { recursiveReadOnlyMounts?: boolean; userNamespaces?: boolean } | null;
  userNamespace?: {
    mode?: NamespaceMode;
    uids?: IdMapping[];
    gids?: IdMapping[];
  } | null;
  extraSupplementalGroups?: number[];
  deviceAllocations?: {
    [containerName: string]: {
      devices?: { pathOnHost?: string; pathInContainer?: string; permissions?: string }[];
      mounts?: { hostPath?: string; containerPath?: string; readOnly?: boolean }[];
      envs?: { name?: string; value?: string }[];
      annotations?: { name?: string; value?: string }[];
      cdiDevices?: string[];
    };
  };
  exclusiveCPUs?: { [containerName: string]: boolean };
  cpusets?: { [containerName: string]: { cpus?: string; mems?: string } };
  terminationLogIds?: { [containerName: string]: string };
  logFiles?: { [containerName: string]: string[] };
  envFiles?: { [containerName: string]: { [file: string]: { [key: string]: string } } };
}

/** A CRI `IDMapping`. */
export interface IdMapping {
  hostId?: number;
  containerId?: number;
  length?: number;
}

/** KubeletConfiguration values config generation reads. */
export interface KubeletSettings {
  rootDir?: string | null;
  podLogsDir?: string | null;
  clusterDomain?: string | null;
  clusterDNS?: string[] | null;
  resolvConf?: string | null;
  cpuCFSQuota?: boolean | null;
  cpuCFSQuotaPeriod?: string | null;
  seccompDefault?: boolean | null;
  seccompProfileRoot?: string | null;
  memorySwapBehavior?: string | null;
  memoryThrottlingFactor?: number | null;
  memoryReservationPolicy?: string | null;
  /** Already resolved; `null` means the kubelet's own default. */
  singleProcessOOMKill?: boolean | null;
}

// ---------------------------------------------------------------------------------
// Runtime status (CRI / kubecontainer).

/** The runtime's view of a pod: sandboxes and containers, newest first. */
export interface RuntimeStatus {
  /** Pod UID. */
  id?: string;
  name?: string;
  namespace?: string;
  ips?: string[];
  /** CRI `PodSandboxStatus`es, newest first (index 0 is the latest). */
  sandboxStatuses?: SandboxStatus[];
  /** Container statuses, newest first; several may share a name. */
  containerStatuses?: ContainerStatus[];
}

/** CRI `PodSandboxStatus` (proto3 JSON). */
export interface SandboxStatus {
  id?: string;
  metadata?: { name?: string; uid?: string; namespace?: string; attempt?: number } | null;
  state?: SandboxState;
  /** Nanoseconds since the epoch. */
  createdAt?: number;
  /** Absent and `{ip: ""}` are different facts. */
  network?: { ip?: string; additionalIps?: { ip?: string }[] } | null;
  linux?: {
    namespaces?: {
      options?: {
        network?: NamespaceMode;
        pid?: NamespaceMode;
        ipc?: NamespaceMode;
        targetId?: string;
      } | null;
    } | null;
  } | null;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  runtimeHandler?: string;
}

/** CRI `PodSandboxState`. */
export type SandboxState = "SANDBOX_READY" | "SANDBOX_NOTREADY";
/** CRI `NamespaceMode`. */
export type NamespaceMode = "POD" | "CONTAINER" | "NODE" | "TARGET";

/** One container as the runtime reports it (`kubecontainer.Status`). */
export interface ContainerStatus {
  /** Runtime container id, `type://id`. */
  id?: string;
  name?: string;
  /** The sandbox the container belongs to (absent = the latest sandbox). */
  podSandboxId?: string | null;
  state?: ContainerState;
  createdAt?: Time | null;
  startedAt?: Time | null;
  finishedAt?: Time | null;
  exitCode?: number;
  image?: string;
  imageId?: string;
  imageRef?: string;
  /** The kubelet container hash recorded at creation (0 = absent). */
  hash?: number;
  restartCount?: number;
  reason?: string;
  message?: string;
  /** CRI `ContainerResources` as the runtime reports them. */
  resources?: Json;
}

/** A container's state as the runtime reports it. */
export type ContainerState = "created" | "running" | "exited" | "unknown";

// ---------------------------------------------------------------------------------
// Kubernetes v1 objects (the fields the kubelet reads; others as JSON).

/** `v1.Pod`. */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
}

/** `metav1.ObjectMeta`. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  ownerReferences?: JsonObject[];
  finalizers?: string[];
  managedFields?: JsonObject[];
  selfLink?: string;
}

/** `v1.PodSpec`. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  restartPolicy?: "Always" | "OnFailure" | "Never" | "";
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name?: string; value?: string }[] };
  nodeName?: string;
  nodeSelector?: { [key: string]: string };
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostUsers?: boolean;
  shareProcessNamespace?: boolean;
  hostname?: string;
  hostnameOverride?: string;
  subdomain?: string;
  setHostnameAsFQDN?: boolean;
  hostAliases?: { ip: string; hostnames?: string[] }[];
  securityContext?: JsonObject;
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  imagePullSecrets?: { name?: string }[];
  os?: { name: string };
  overhead?: ResourceList;
  resources?: ResourceRequirements;
  resourceClaims?: JsonObject[];
  runtimeClassName?: string;
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: string;
  schedulerName?: string;
  schedulingGates?: { name: string }[];
  readinessGates?: { conditionType: string }[];
  tolerations?: JsonObject[];
  affinity?: JsonObject;
  topologySpreadConstraints?: JsonObject[];
  volumes?: Volume[];
  evictionResponders?: JsonObject[];
  schedulingGroup?: JsonObject;
}

/** `v1.Volume`: a name and one source (typed as JSON). */
export interface Volume {
  name: string;
  [source: string]: Json | undefined;
}

/** `v1.Container`. */
export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: "Always" | "Never" | "IfNotPresent";
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: JsonObject[];
  resources?: ResourceRequirements;
  resizePolicy?: { resourceName: string; restartPolicy: "NotRequired" | "RestartContainer" }[];
  /** `Always` marks an init container as a sidecar; on regular containers (with restart rules) any policy. */
  restartPolicy?: "Always" | "OnFailure" | "Never";
  restartPolicyRules?: ContainerRestartRule[];
  volumeMounts?: VolumeMount[];
  volumeDevices?: { name: string; devicePath: string }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: JsonObject;
  terminationMessagePath?: string;
  terminationMessagePolicy?: "File" | "FallbackToLogsOnError" | "";
  securityContext?: JsonObject;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
}

/** `v1.EphemeralContainer`. */
export interface EphemeralContainer extends Omit<Container, "restartPolicy"> {
  targetContainerName?: string;
  restartPolicy?: string;
}

/** `v1.ContainerRestartRule`. */
export interface ContainerRestartRule {
  action: "Restart" | "RestartAllContainers";
  exitCodes?: { operator: "In" | "NotIn"; values?: number[] };
}

/** `v1.ContainerPort`. */
export interface ContainerPort {
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  name?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
}

/** `v1.EnvVar`. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: JsonObject;
}

/** `v1.VolumeMount`. */
export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  subPathExpr?: string;
  readOnly?: boolean;
  recursiveReadOnly?: "Disabled" | "IfPossible" | "Enabled";
  mountPropagation?: "None" | "HostToContainer" | "Bidirectional";
}

/** `v1.Probe` (the kubelet only tests for presence when deciding). */
export interface Probe {
  exec?: { command?: string[] };
  httpGet?: JsonObject;
  tcpSocket?: JsonObject;
  grpc?: JsonObject;
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

/** `v1.ResourceRequirements`. */
export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: { name: string; request?: string }[];
}

/** `v1.PodStatus` (only `conditions` is read by a rule; the rest is accepted as JSON). */
export interface PodStatus {
  conditions?: { type: string; status: "True" | "False" | "Unknown"; reason?: string; message?: string; lastTransitionTime?: Time; lastProbeTime?: Time; observedGeneration?: number }[];
  phase?: string;
  qosClass?: string;
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: Time;
  observedGeneration?: number;
  resize?: string;
  resources?: ResourceRequirements;
  allocatedResources?: ResourceList;
  initContainerStatuses?: ApiContainerStatus[];
  containerStatuses?: ApiContainerStatus[];
  ephemeralContainerStatuses?: ApiContainerStatus[];
  resourceClaimStatuses?: JsonObject[];
  extendedResourceClaimStatus?: JsonObject;
  nodeAllocatableResourceClaimStatuses?: JsonObject[];
  volumeHealth?: JsonObject[];
}

/** `v1.ContainerState`: at most one of the three is set. */
export interface ApiContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: Time };
  terminated?: { exitCode: number; signal?: number; reason?: string; message?: string; startedAt?: Time; finishedAt?: Time; containerID?: string };
}

/** `v1.ContainerStatus` (the fields the kubelet sets; the rest is accepted as JSON). */
export interface ApiContainerStatus {
  name: string;
  state?: ApiContainerState;
  lastState?: ApiContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
  /** `allocatedResources`, `resources`, `user`, `volumeMounts`, … as JSON. */
  [key: string]: unknown;
}

/** Extension: the `kubectl get pods` row of the pod carrying the plan's `status`. */
export interface KubectlRow {
  name: string;
  /** READY, e.g. `"1/2"`. */
  ready: string;
  /** STATUS, e.g. `Running`, `Init:0/2`, `CrashLoopBackOff`, `Completed`. */
  status: string;
  /** RESTARTS, e.g. `"3"` or `"3 (10s ago)"`. */
  restarts: string;
  /** AGE, e.g. `"5m"`; `"<unknown>"` without `now`. */
  age: string;
  conditions: { type: string; status: string; reason: string; message: string }[];
  ip?: string;
  node?: string;
  nominatedNode?: string;
  readinessGates?: string;
}

/** Extension: the kubelet's reason cache, container name → last start error. */
export type ReasonCache = { [container: string]: { reason: string; message: string } };

// ---------------------------------------------------------------------------------
// Plan (the answer).

/** What the kubelet would do on its next sync, and why. */
export interface Plan {
  /** The kubelet's `podActions`. */
  actions: PodActions;
  /** Why each action was chosen, in the order the decisions were made. */
  decisions: Decision[];
  /** CRI `PodSandboxConfig`, when a sandbox is created or containers are started. */
  sandboxConfig?: PodSandboxConfig;
  /** CRI `ContainerConfig` per container to be created. */
  containerConfigs?: ContainerConfigEntry[];
  /** CRI operations in the order `SyncPod` performs them. */
  steps: Step[];
  /** Events the kubelet would record. */
  events: Event[];
  /** Per-container errors that stop a container's creation. */
  errors?: ContainerError[];
  /** Extension: starts held back by crash-loop back-off. */
  heldBack?: HeldBack[];
  /** Extension: updated back-off records, for the next request's `backoff`. */
  backoff?: BackoffRecord[];
  /** Extension: updated image-pull back-off records, for the next request's `imageBackoff`. */
  imageBackoff?: ImageBackoffRecord[];
  /** Odd but possible inputs and what the engine did about them. */
  warnings?: Warning[];
  /** Extension: the API status the kubelet generates at the start of this sync. */
  status?: PodStatus;
  /** Extension: the `kubectl get pods` row of the pod with that `status`, at `now`. */
  kubectl?: KubectlRow;
  /** Extension: the reason cache after this plan's steps (the next request's `reasonCache`). */
  reasonCache?: ReasonCache;
}

/** The kubelet's `podActions`. Indices point into the pod spec's container lists. */
export interface PodActions {
  killPod: boolean;
  createSandbox: boolean;
  sandboxId: string;
  attempt: number;
  initContainersToStart: number[];
  containersToStart: number[];
  /** Keyed by runtime container id (`type://id`). */
  containersToKill: { [containerId: string]: ContainerToKill };
  ephemeralContainersToStart: number[];
  /** Per resource (`cpu`, `memory`), decreases first; absent when no in-place resize applies. */
  containersToUpdate?: { [resource: string]: ContainerToUpdate[] };
  updatePodResources: boolean;
  updatePodLevelResources: boolean;
  /** RestartAllContainers: containers to kill (if `kill`) and remove, in order. */
  containersToReset?: ContainerToReset[];
}

/** Kill reason (`containerKillReason`); `""` = spec change or resize restart. */
export type KillReason =
  | ""
  | "StartupProbe"
  | "LivenessProbe"
  | "FailedPostStartHook"
  | "Unknown"
  | "RestartAllContainers";

/** One entry of `containersToKill`. */
export interface ContainerToKill {
  name: string;
  reason: KillReason;
  message: string;
}

/** Resize values: memory in bytes, CPU in millicores. */
export interface ResizeResources {
  memoryLimit: number;
  memoryRequest: number;
  cpuLimit: number;
  cpuRequest: number;
}

/** One entry of `containersToUpdate[resource]`. */
export interface ContainerToUpdate {
  name: string;
  containerId: string;
  desired: ResizeResources;
  current: ResizeResources;
}

/** One entry of `containersToReset`. */
export interface ContainerToReset {
  name: string;
  containerId: string;
  kill: boolean;
}

/** Why an action was chosen. */
export interface Decision {
  action:
    | "killPod"
    | "createSandbox"
    | "startInitContainer"
    | "startContainer"
    | "startEphemeralContainer"
    | "killContainer"
    | "updateResources"
    | "resetContainer"
    | "keepContainer"
    | "wait"
    | "doNotRestart"
    | (string & {});
  container?: string;
  /** Machine-readable, e.g. `LivenessProbeFailed`. */
  reason: string;
  /** Human explanation naming the rule that fired. */
  message: string;
  /** What became of the decision by the end of the sync (extension; see docs/contract.md). */
  effect: DecisionEffect;
  /** `superseded`: the index in `decisions` of the later decision that overrode it; `notCarriedOut`: the note that explains it. */
  supersededBy?: number;
  /** The index in `steps` of the step that carries it out. */
  step?: number;
}

/** `effective`, `superseded` (a later rule overrode it), `notCarriedOut` (SyncPod did not carry it out on this sync), `noop` (nothing to do). */
export type DecisionEffect = "effective" | "superseded" | "notCarriedOut" | "noop";

/** Which list of the pod spec a container comes from. */
export type ContainerKind = "init" | "regular" | "ephemeral";

/** A CRI operation of the plan, in `SyncPod` order; which fields are set depends on `op`. */
export interface Step {
  op:
    | "KillPod"
    | "KillContainer"
    | "RemoveContainer"
    | "RunPodSandbox"
    | "UpdatePodSandboxResources"
    | "UpdateContainerResources"
    | "CreateContainer"
    | "StartContainer"
    | "PullImage"
    | "WriteNodeFiles";
  container?: string;
  kind?: ContainerKind;
  /** Index into the spec list `kind` names. */
  index?: number;
  containerId?: string;
  sandboxId?: string;
  attempt?: number;
  /** `cpu` or `memory` (resize steps). */
  resource?: string;
  gracePeriodSeconds?: number;
  /** Containers concerned (e.g. every container a `KillPod` stops). */
  containers?: string[];
  reason?: string;
  message?: string;
  /** The exact CRI request of a resize step (proto3 JSON). */
  request?: JsonObject;
  /** `WriteNodeFiles`: directories and files to create on the node, in order. */
  files?: NodeFile[];
  /** Complete this step from the new sandbox's status (`complete`) before doing it. */
  dependsOnNewSandbox?: boolean;
  /** `PullImage`: the image as written in the container. */
  image?: string;
  /** `PullImage`: the CRI `ImageSpec`. */
  imageSpec?: { image: string; annotations: { name: string; value: string }[]; runtimeHandler: string };
  /** `PullImage`: one request per credential, in order; none = one anonymous request. */
  auth?: { username?: string; password?: string }[];
  /** `PullImage`: where the `PodSandboxConfig` sent with the pull is (`"plan.sandboxConfig"`). */
  sandboxConfig?: string;
  /** `PullImage`: the image back-off key, to report back in `pullResults`. */
  backoffKey?: string;
}

/** What the node's image service reports (request `images`). */
export interface ImagesReport {
  /** Tag-defaulted image name → imageRef. */
  present: { [image: string]: string };
  /** Names whose `ImageStatus` fails, with the error text. */
  inspectErrors?: { [image: string]: string };
  /** Model runtime only: scripted registry faults by image as written. */
  registry?: { [image: string]: { fault: PullFault; times?: number } };
}

/** The result of one `PullImage` step, as the executor reports it. */
export interface PullResultRecord {
  image: string;
  backoffKey?: string;
  /** When the pull ended. */
  at: Time;
  imageRef?: string;
  error?: string;
  pullMillis?: number;
  totalMillis?: number;
  imageSize?: number;
}

/** One image-pull back-off record. */
export interface ImageBackoffRecord {
  key: string;
  delaySeconds: number;
  lastUpdate: Time;
  previousError?: string;
}

/** A directory or file the kubelet writes on the node. */
export interface NodeFile {
  purpose: "podLogs" | "podDir" | "etcHosts" | "terminationLogDir" | "containerLogs" | "terminationLog" | string;
  path: string;
  kind: "directory" | "file";
  /** Octal permission bits, e.g. `0644`. */
  mode: string;
  content?: string;
  /** A node file whose bytes follow `content` (host-network `/etc/hosts`). */
  include?: { path: string; suffix?: string };
}

/** An event the kubelet would record. */
export interface Event {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  /** The container the event is about, if any. */
  container?: string;
}

/** A per-container error, e.g. `CreateContainerConfigError`. */
export interface ContainerError {
  container: string;
  reason: string;
  message: string;
}

/** A start held back by crash-loop or image-pull back-off. */
export interface HeldBack {
  container: string;
  kind?: ContainerKind;
  index?: number;
  /** Seconds until the back-off expires. */
  waitSeconds: number;
  /** When it expires. */
  until?: Time;
  /** The current back-off delay. */
  delaySeconds: number;
  /** Absent: crash-loop back-off; `ImagePullBackOff`: the image-pull back-off. */
  reason?: "ImagePullBackOff";
}

/** A non-fatal observation about the input. */
export interface Warning {
  /** JSON path into the request. */
  path: string;
  message: string;
}

/** CRI `PodSandboxConfig` (proto3 JSON); the main fields typed, the rest open. */
export interface PodSandboxConfig {
  metadata?: { name?: string; uid?: string; namespace?: string; attempt?: number };
  hostname?: string;
  logDirectory?: string;
  dnsConfig?: { servers?: string[]; searches?: string[]; options?: string[] };
  portMappings?: CriPortMapping[];
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  linux?: JsonObject;
  [field: string]: unknown;
}

/** CRI `PortMapping`. */
export interface CriPortMapping {
  protocol?: "TCP" | "UDP" | "SCTP";
  containerPort?: number;
  hostPort?: number;
  hostIp?: string;
}

/** A generated container config in the plan. */
export interface ContainerConfigEntry {
  name: string;
  type: "init" | "regular" | "ephemeral";
  restartCount: number;
  /** CRI `ContainerConfig`. */
  config: CriContainerConfig;
  /** Generated before the sandbox this sync creates: complete it (`complete`). */
  dependsOnNewSandbox?: boolean;
}

/** CRI `ContainerConfig` (proto3 JSON); the main fields typed, the rest open. */
export interface CriContainerConfig {
  metadata?: { name?: string; attempt?: number };
  image?: { image?: string; userSpecifiedImage?: string; [field: string]: Json | undefined };
  command?: string[];
  args?: string[];
  workingDir?: string;
  /** `value` is `bytes` in the 1.37 cri-api: readable form a string when UTF-8, else
   *  `{base64}`; strict form (`proto3Json`) always a base64 string. */
  envs?: { key?: string; value?: string | { base64: string } }[];
  mounts?: JsonObject[];
  devices?: JsonObject[];
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  logPath?: string;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  linux?: JsonObject;
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------
// Errors.

/** The answer to bad input: `{error: {kind, path, message}}`. */
export interface ErrorAnswer {
  error: PlanError;
}

/** A structured error. */
export interface PlanError {
  /** `InvalidInput`: not JSON, wrong shape, unknown field, failed validation. `LimitExceeded`: too big or too deep. */
  kind: "InvalidInput" | "LimitExceeded";
  /** JSON path of the offending value, e.g. `pod.spec.containers[1].name` (empty = the whole input). */
  path: string;
  message: string;
}
