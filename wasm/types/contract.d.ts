// The plan contract's types, generated from the serde types in core/src by
// typegen/ (podplan-typegen). Do not edit: run `scripts/gen-types`.
// Kubernetes objects and the JSON helpers are hand-written in ./kubernetes.d.ts.

import type { ConfigMap, Json, Pod, PodStatus, Quantity, ResourceRequirements, Secret, Service, Time } from "./kubernetes.js";

// core/src/request.rs

/** One request: everything the kubelet knows about a pod at the start of a sync. */
export interface PlanRequest {
  /** The API pod (`v1.Pod`). Not API-defaulted: an absent field really is absent. */
  pod: Pod;
  /** What the runtime reports (`kubecontainer.PodStatus`). Absent = nothing exists yet. */
  runtimeStatus?: RuntimeStatus | null;
  /** Prober results by runtime container id (`type://id`). No entry = no result yet. */
  probes?: { [key: string]: ProbeResults };
  /** Feature-gate overrides of the 1.37 defaults (see `crate::features`). */
  featureGates?: { [key: string]: boolean };
  /** The kubelet's actuated-resources checkpoint (resources last applied). */
  actuatedResources?: ActuatedResources | null;
  /** The pod is restarting all its containers (`AllContainersRestarting` condition). */
  restartAllContainers?: boolean;
  /** Node and kubelet facts used to generate CRI configs (every key optional). */
  node?: NodeContext | null;
  /**
   * Extension: the sync's wall-clock time, for crash-loop back-off. Absent = back-off
   * is not evaluated (starts are never held back).
   */
  now?: Time | null;
  /**
   * Extension: apply the API server's defaulting to `pod` before deciding (see
   * `defaults`). Bare Pod documents imply it.
   */
  apiDefaults?: boolean;
  /** Extension: the crash-loop back-off records from the previous sync's plan. */
  backoff?: BackoffRecord[];
  /**
   * Extension: answer with the configs in strict proto3 JSON (env values base64, as
   * the 1.37 cri-api's `bytes` field requires) instead of the readable form. Only
   * `crate::plan_json` and `crate::plan_value` read it (see `crate::cri::proto3`).
   */
  proto3Json?: boolean;
  /**
   * Extension: the status manager's cached API status (the previous plan's `status`).
   * Absent = none cached: the kubelet falls back to `pod.status`.
   */
  previousStatus?: PodStatus | null;
  /**
   * Extension: the reason cache, container name → the previous sync's start error
   * (the previous plan's `reasonCache`).
   */
  reasonCache?: ReasonCache;
  /**
   * Extension: what the executor reported after carrying out the previous plan's hook
   * steps (`postStart` on `StartContainer`, `preStop` on kills), see
   * `crate::hooks::results`. Empty = no hook ran, or the caller does not report them.
   */
  hookResults?: HookResult[];
  /**
   * Extension: the node's images as `ImageStatus` reports them. Absent = the
   * image manager is not consulted: every image counts as present (today's plans).
   */
  images?: ImagesReport | null;
  /** Extension: results of the previous plan's `PullImage` steps. */
  pullResults?: PullResultRecord[];
  /** Extension: the image-pull back-off records of the previous plan (`imageBackoff`). */
  imageBackoff?: ImageBackoffRecord[];
  /**
   * Extension: the pod's resolved image pull secrets (`spec.imagePullSecrets` as the
   * kubelet fetches them).
   */
  pullSecrets?: Secret[];
  /** Extension: node keyring / credential-provider credentials by registry key. */
  nodeCredentials?: { [key: string]: TrackedCredential[] };
  /**
   * Extension: the pull-record check (gate KubeletEnsureSecretPulledImages). Absent =
   * `{"allowAll": true}`.
   */
  pullRecords?: PullRecordCheck | null;
  /**
   * Extension: the pod worker's state (`pkg/kubelet/pod_workers.go`): a kill request
   * (eviction), removal from the node, the grace period in force, static pods of the
   * same full name. Absent = the worker syncs the pod.
   */
  podWorker?: PodWorkerState | null;
}

/** Prober results recorded for one container. */
export interface ProbeResults {
  /** Liveness result, absent when the prober has not reported. */
  liveness?: ProbeResult | null;
  /** Startup result, absent when the prober has not reported. */
  startup?: ProbeResult | null;
  /**
   * Readiness result (extension), absent when the prober has not reported. It never
   * changes the pod's actions: readiness only decides whether the container counts
   * as ready (Service endpoints), it never restarts it.
   */
  readiness?: ProbeResult | null;
}

/** One probe result (`proberesults.Result`). */
export type ProbeResult =
  /** The probe passed. */
  | "success"
  /** The probe failed. */
  | "failure"
  /** A result is pending (startup probes start as unknown). */
  | "unknown";

/** The actuated-resources checkpoint: resources last applied per container and pod. */
export interface ActuatedResources {
  /** Per container name. A container without a record counts as zero. */
  containers?: { [key: string]: ResourceRequirements };
  /** Pod-level record, if any. */
  pod?: ResourceRequirements | null;
}

// core/src/plan/mod.rs

/**
 * What the kubelet would do on its next sync, and why.
 *
 * A plan is a decision, not an effect: the caller carries out `Plan::steps`.
 */
export interface Plan {
  /** The kubelet's `podActions`. */
  actions: PodActions;
  /** Why each action was chosen, in the order the decisions were made. */
  decisions: Decision[];
  /** CRI `PodSandboxConfig`, when a sandbox is created or containers are started. */
  sandboxConfig?: PodSandboxConfig;
  /**
   * The pod's cgroup, which `SyncPod` ensures (`podContainerManager.EnsureExists`)
   * before anything else of a sync that creates the pod's sandbox: only when the node
   * context says the kubelet manages cgroups (`kubelet.cgroupsPerQOS: true`).
   */
  podCgroup?: PodCgroup;
  /** CRI `ContainerConfig` per container to be created. */
  containerConfigs?: ContainerConfigEntry[];
  /** CRI operations in the order `SyncPod` performs them. */
  steps: Step[];
  /** Events the kubelet would record. */
  events: Event[];
  /** Per-container errors that stop a container's creation. */
  errors?: ContainerError[];
  /** Starts held back by crash-loop back-off (extension). */
  heldBack?: HeldBack[];
  /** The updated crash-loop back-off records, to pass to the next request (extension). */
  backoff?: BackoffRecord[];
  /**
   * The updated image-pull back-off records, to pass to the next request as
   * `imageBackoff` (extension).
   */
  imageBackoff?: ImageBackoffRecord[];
  /** Odd but possible inputs (e.g. statuses of containers not in the spec). */
  warnings?: Warning[];
  /**
   * Extension: the API status (`v1.PodStatus`) the kubelet generates at the **start**
   * of this sync, from the request's runtime status and the previous sync's results;
   * pass it as the next request's `previousStatus`.
   */
  status?: PodStatus;
  /** Extension: the `kubectl get pods` row of the pod with that `status`, at `now`. */
  kubectl?: KubectlRow;
  /**
   * Extension: the reason cache after this sync's steps (start errors and held-back
   * starts); pass it as the next request's `reasonCache`.
   */
  reasonCache?: ReasonCache;
  /**
   * Extension: the pod worker's phase this plan is for (`pkg/kubelet/pod_workers.go`);
   * absent = `syncing` (`SyncPod`).
   */
  workerPhase?: WorkerPhase;
}

// core/src/error.rs

/** What kind of problem stopped the engine from producing a plan. */
export type ErrorKind =
  /**
   * The request is not valid JSON/YAML, has the wrong shape, unknown fields,
   * values outside their enum, or a pod that fails validation.
   */
  | "InvalidInput"
  /** The request exceeds a size or nesting limit (see `crate::limits`). */
  | "LimitExceeded";

/** A structured error: what went wrong, where (a JSON path into the request), and why. */
export interface PlanError {
  /** The error class. */
  kind: ErrorKind;
  /** JSON path of the offending value, e.g. `pod.spec.containers[1].name` (empty = whole input). */
  path: string;
  /** A human-readable explanation. */
  message: string;
}

/** The JSON envelope of an error answer: `{"error": {...}}`. */
export interface ErrorEnvelope {
  /** The error. */
  error: PlanError;
}

// core/src/sim/event.rs

/** Something that happens to the pod between two syncs. */
export type SimEvent =
  /** Virtual time passes: the request's `now` moves forward. */
  | {
    type: "advance";
    /** Seconds (not negative). */
    seconds: number;
  }
  /**
   * The newest running instance of a container exits. An exit code that matches a
   * `RestartAllContainers` rule (gate `RestartAllContainersOnContainerExits` on) starts
   * a restart of all containers, as the kubelet's `ShouldAllContainersRestart` sees it.
   */
  | {
    type: "exit";
    /** Container name. */
    container: string;
    /** Exit code. */
    code: number;
  }
  /**
   * The prober records a result for the newest instance of a running container. A
   * failure is recorded as the kubelet's prober records one (`doProbe` in
   * `pkg/kubelet/prober/worker.go`): no probe runs before `initialDelaySeconds` after
   * the container started, and only `failureThreshold` failures in a row, one every
   * `periodSeconds`, change the result; the clock (`now`) moves on to then
   * (`probe_failure_recorded_at`). A success is recorded at once.
   */
  | {
    type: "probe";
    /** Container name. */
    container: string;
    /** Which probe. */
    probe: ProbeKind;
    /** The result. */
    result: ProbeResult;
  }
  /** The latest sandbox dies, with every running container in it. */
  | { type: "sandboxDies" }
  /** The latest sandbox loses its IP address (it stays ready). */
  | { type: "sandboxLosesIp" }
  /** The pod spec changes a container's image. */
  | {
    type: "setImage";
    /** Container name. */
    container: string;
    /** The new image. */
    image: string;
  }
  /**
   * The registry fails the next pulls of an image (the playground's "pull fails"
   * control). Turns the image manager on if the request had no `images` (the images of
   * the containers the runtime has count as present).
   */
  | {
    type: "pullFails";
    /** The image as written in the container. */
    image: string;
    /** `registryDown` or `notFound`. */
    fault: PullFault;
    /** How many pulls fail; absent = every pull until `pullWorks`. */
    times?: number | null;
  }
  /** Pulls of an image work again. */
  | {
    type: "pullWorks";
    /** The image as written in the container. */
    image: string;
  }
  /** The node's image garbage collection removes an image. */
  | {
    type: "removeImage";
    /** The image as written in the container. */
    image: string;
  }
  /**
   * From now on the container's postStart hook fails (`fails: false`: succeeds
   * again) when the runtime runs it. Kept in the simulation's
   * `HookControls`, not in the request.
   */
  | {
    type: "postStartFails";
    /** Container name. */
    container: string;
    /** Whether it fails (default true). */
    fails?: boolean;
  }
  /**
   * The API server marks the pod for deletion (`kubectl delete`): `deletionTimestamp`
   * = now + the grace period, `deletionGracePeriodSeconds` = the grace period (given,
   * else the spec's `terminationGracePeriodSeconds`, else 30 s, the API default).
   */
  | {
    type: "delete";
    /** The delete request's `gracePeriodSeconds`. */
    gracePeriodSeconds?: number | null;
  }
  /**
   * The kubelet's eviction manager evicts the pod (`podWorker.kill`): phase `Failed`,
   * reason `Evicted`, the message, grace period `gracePeriodSeconds` (default 1 s:
   * a hard eviction threshold, `immediateEvictionGracePeriodSeconds`).
   */
  | {
    type: "evict";
    /** The eviction message (default `The node was low on resource: memory. `). */
    message?: string | null;
    /** The grace period override (soft thresholds: `evictionMaxPodGracePeriod`). */
    gracePeriodSeconds?: number | null;
  }
  /**
   * The kernel's OOM killer kills the newest running instance of a container: exit
   * code 137, reason `OOMKilled`.
   */
  | {
    type: "oomKill";
    /** Container name. */
    container: string;
  }
  /**
   * Something other than the kubelet (a controller, `kubectl patch --subresource
   * status`) sets a pod condition in the API status: a readiness gate's
   * (`spec.readinessGates`), which the kubelet's status manager reads to compute
   * `Ready` (`GeneratePodReadyCondition` in `pkg/kubelet/status/generate.go`) and never
   * writes. The conditions the kubelet owns cannot be set this way.
   */
  | {
    type: "setCondition";
    /** The condition type (a readiness gate's `conditionType`). */
    condition: string;
    /** `True`, `False` or `Unknown`. */
    status: string;
  }
  /**
   * From now on a successful pull of `image` (as written in the container) takes
   * `seconds` (default `PULL_MILLIS`). Kept in the
   * simulation's `HookControls`.
   */
  | {
    type: "pullTakes";
    /** The image as written in the container. */
    image: string;
    /** Seconds. */
    seconds: number;
  }
  /**
   * From now on a container takes `seconds` to exit after `StopContainer`'s stop
   * signal (cut at the stop's grace period: SIGKILL). Kept in the simulation's
   * `HookControls`.
   */
  | {
    type: "stopTakes";
    /** Container name. */
    container: string;
    /** Seconds. */
    seconds: number;
  }
  /**
   * From now on the container's preStop hook runs `seconds` (cut at the kill's grace
   * period) and, with `fails`, then fails.
   */
  | {
    type: "preStopTakes";
    /** Container name. */
    container: string;
    /** Seconds. */
    seconds: number;
    /** Whether it fails afterwards (default false). */
    fails?: boolean;
  };

// core/src/sim/hooks.rs

/**
 * What the simulated world's hooks do (by container name). The default: every hook
 * succeeds at once (a `sleep` preStop takes its seconds).
 */
export interface HookControls {
  /** Containers whose postStart hook fails. */
  postStartFails?: string[];
  /** Containers whose preStop hook fails (after running its time). */
  preStopFails?: string[];
  /** How long a container's preStop hook runs, seconds (it is cut at the grace period). */
  preStopSeconds?: { [key: string]: number };
  /**
   * How long a container takes to exit once `StopContainer` sent its stop signal,
   * seconds (cut at the stop's grace period, when the runtime sends SIGKILL). Absent:
   * at once. It is the node's `ContainerScript::stop_seconds` for the container.
   */
  exitSeconds?: { [key: string]: number };
  /**
   * How long a successful pull of an image (as written in the container) takes,
   * seconds. Absent: `PULL_MILLIS`.
   */
  pullSeconds?: { [key: string]: number };
}

// core/src/cri/sandbox.rs

/** CRI `PodSandboxConfig`. */
export interface PodSandboxConfig {
  /** Identity of the sandbox. */
  metadata?: PodSandboxMetadata | null;
  /** Hostname (empty for host-network pods). */
  hostname?: string;
  /** Directory for the containers' log files. */
  logDirectory?: string;
  /** DNS settings. */
  dnsConfig?: DnsConfig | null;
  /** Port mappings. */
  portMappings?: PortMapping[];
  /** Labels. */
  labels?: { [key: string]: string };
  /** Annotations. */
  annotations?: { [key: string]: string };
  /** Linux settings. */
  linux?: LinuxPodSandboxConfig | null;
  /** Windows settings (never set by a Linux kubelet). */
  windows?: WindowsPodSandboxConfig | null;
}

/** CRI `PodSandboxMetadata`. */
export interface PodSandboxMetadata {
  /** Pod name. */
  name?: string;
  /** Pod UID. */
  uid?: string;
  /** Pod namespace. */
  namespace?: string;
  /** Attempt number. */
  attempt?: number;
}

/** CRI `DNSConfig`. */
export interface DnsConfig {
  /** Name servers. */
  servers?: string[];
  /** Search domains. */
  searches?: string[];
  /** resolv.conf options. */
  options?: string[];
}

/** CRI `PortMapping`. */
export interface PortMapping {
  /** Protocol. */
  protocol?: Protocol;
  /** Port in the container. */
  containerPort?: number;
  /** Port on the host (0 = none). */
  hostPort?: number;
  /** Host IP. */
  hostIp?: string;
}

/** CRI `LinuxPodSandboxConfig`. */
export interface LinuxPodSandboxConfig {
  /** Parent cgroup. */
  cgroupParent?: string;
  /** Sandbox security settings. */
  securityContext?: LinuxSandboxSecurityContext | null;
  /** Sysctls. */
  sysctls?: { [key: string]: string };
  /** Pod overhead resources. */
  overhead?: LinuxContainerResources | null;
  /** The pod's resources (sum of its containers', without overhead). */
  resources?: LinuxContainerResources | null;
}

/** CRI `LinuxSandboxSecurityContext`. */
export interface LinuxSandboxSecurityContext {
  /** Namespaces. */
  namespaceOptions?: NamespaceOption | null;
  /** SELinux labels. */
  selinuxOptions?: SeLinuxOption | null;
  /** UID of sandbox processes. */
  runAsUser?: Int64Value | null;
  /** GID of sandbox processes. */
  runAsGroup?: Int64Value | null;
  /** Read-only root filesystem. */
  readonlyRootfs?: boolean;
  /** Supplemental groups. */
  supplementalGroups?: number[];
  /** How supplemental groups combine with the image's. */
  supplementalGroupsPolicy?: SupplementalGroupsPolicy;
  /** Some container of the pod is privileged. */
  privileged?: boolean;
  /** Seccomp profile. */
  seccomp?: SecurityProfile | null;
  /** AppArmor profile. */
  apparmor?: SecurityProfile | null;
  /** Deprecated seccomp profile path. */
  seccompProfilePath?: string;
}

/** CRI `WindowsPodSandboxConfig`. */
export interface WindowsPodSandboxConfig {
  /** Sandbox security settings. */
  securityContext?: WindowsSandboxSecurityContext | null;
}

/** CRI `WindowsSandboxSecurityContext`. */
export interface WindowsSandboxSecurityContext {
  /** User name. */
  runAsUsername?: string;
  /** GMSA credential spec. */
  credentialSpec?: string;
  /** HostProcess sandbox. */
  hostProcess?: boolean;
  /** Namespaces. */
  namespaceOptions?: WindowsNamespaceOption | null;
}

/** CRI `WindowsNamespaceOption`. */
export interface WindowsNamespaceOption {
  /** Network namespace. */
  network?: NamespaceMode;
}

// core/src/cri/container.rs

/** CRI `ContainerConfig`. */
export interface ContainerConfig {
  /** Name and attempt. */
  metadata?: ContainerMetadata | null;
  /** Image. */
  image?: ImageSpec | null;
  /** Entrypoint. */
  command?: string[];
  /** Arguments. */
  args?: string[];
  /** Working directory. */
  workingDir?: string;
  /** Environment, in order (duplicates allowed; the last wins). */
  envs?: KeyValue[];
  /** Mounts, in order. */
  mounts?: Mount[];
  /** Devices. */
  devices?: Device[];
  /** Labels. */
  labels?: { [key: string]: string };
  /** Annotations. */
  annotations?: { [key: string]: string };
  /** Log path relative to the sandbox's log directory. */
  logPath?: string;
  /** Keep stdin open. */
  stdin?: boolean;
  /** Close stdin after the first attach. */
  stdinOnce?: boolean;
  /** Allocate a TTY. */
  tty?: boolean;
  /** Linux settings. */
  linux?: LinuxContainerConfig | null;
  /** Windows settings (never set by a Linux kubelet). */
  windows?: WindowsContainerConfig | null;
  /** CDI devices (proto field `CDI_devices`). */
  CDIDevices?: CdiDevice[];
  /** Stop signal. */
  stopSignal?: Signal;
}

/** CRI `ContainerMetadata`. */
export interface ContainerMetadata {
  /** Container name. */
  name?: string;
  /** Attempt (the restart count). */
  attempt?: number;
}

/** CRI `ImageSpec`. */
export interface ImageSpec {
  /** Image reference (id or digest) the pull returned. */
  image?: string;
  /** Annotations. */
  annotations?: { [key: string]: string };
  /** The image as the user wrote it. */
  userSpecifiedImage?: string;
  /** Runtime handler for the pull. */
  runtimeHandler?: string;
  /** Image digest (image volumes). */
  imageRef?: string;
}

/** CRI `KeyValue`. */
export interface KeyValue {
  /** Key. */
  key?: string;
  /**
   * Value: `bytes` in the 1.37 cri-api (readable JSON: a string when UTF-8, else
   * `{"base64": ...}`; see `EnvBytes`).
   */
  value?: EnvBytes;
}

/** CRI `Mount`. */
export interface Mount {
  /** Path in the container. */
  containerPath?: string;
  /** Path on the host. */
  hostPath?: string;
  /** Read-only. */
  readonly?: boolean;
  /** Needs SELinux relabelling. */
  selinuxRelabel?: boolean;
  /** Propagation. */
  propagation?: MountPropagation;
  /** UID mappings (user namespaces). */
  uidMappings?: IdMapping[];
  /** GID mappings (user namespaces). */
  gidMappings?: IdMapping[];
  /** Recursive read-only. */
  recursiveReadOnly?: boolean;
  /** Image to mount (image volumes). */
  image?: ImageSpec | null;
  /** Sub path inside the image. */
  imageSubPath?: string;
}

/** CRI `Device`. */
export interface Device {
  /** Path in the container. */
  containerPath?: string;
  /** Path on the host. */
  hostPath?: string;
  /** cgroup permissions (`r`, `w`, `m`). */
  permissions?: string;
}

/** CRI `CDIDevice`. */
export interface CdiDevice {
  /** Fully qualified CDI device name. */
  name?: string;
}

/** CRI `LinuxContainerConfig`. */
export interface LinuxContainerConfig {
  /** cgroup settings. */
  resources?: LinuxContainerResources | null;
  /** Security settings. */
  securityContext?: LinuxContainerSecurityContext | null;
}

/** CRI `Capability`. */
export interface Capability {
  /** Capabilities to add. */
  addCapabilities?: string[];
  /** Capabilities to drop. */
  dropCapabilities?: string[];
  /** Ambient capabilities to add. */
  addAmbientCapabilities?: string[];
}

/** CRI `LinuxContainerSecurityContext`. */
export interface LinuxContainerSecurityContext {
  /** Capabilities. */
  capabilities?: Capability | null;
  /** Privileged. */
  privileged?: boolean;
  /** Namespaces. */
  namespaceOptions?: NamespaceOption | null;
  /** SELinux labels. */
  selinuxOptions?: SeLinuxOption | null;
  /** UID. */
  runAsUser?: Int64Value | null;
  /** GID. */
  runAsGroup?: Int64Value | null;
  /** User name (resolved in the image). */
  runAsUsername?: string;
  /** Read-only root filesystem. */
  readonlyRootfs?: boolean;
  /** Supplemental groups. */
  supplementalGroups?: number[];
  /** How supplemental groups combine with the image's. */
  supplementalGroupsPolicy?: SupplementalGroupsPolicy;
  /** `no_new_privs`. */
  noNewPrivs?: boolean;
  /** Masked paths. */
  maskedPaths?: string[];
  /** Read-only paths. */
  readonlyPaths?: string[];
  /** Seccomp profile. */
  seccomp?: SecurityProfile | null;
  /** AppArmor profile. */
  apparmor?: SecurityProfile | null;
  /** Deprecated AppArmor profile string (`runtime/default`, `localhost/<p>`, ...). */
  apparmorProfile?: string;
  /** Deprecated seccomp profile path. */
  seccompProfilePath?: string;
}

/** CRI `WindowsContainerConfig`. */
export interface WindowsContainerConfig {
  /** Resources. */
  resources?: WindowsContainerResources | null;
  /** Security settings. */
  securityContext?: WindowsContainerSecurityContext | null;
}

/** CRI `WindowsContainerResources`. */
export interface WindowsContainerResources {
  /** CPU shares. */
  cpuShares?: number;
  /** CPU count. */
  cpuCount?: number;
  /** CPU maximum (percent × 100). */
  cpuMaximum?: number;
  /** Memory limit, bytes. */
  memoryLimitInBytes?: number;
  /** Root filesystem size, bytes. */
  rootfsSizeInBytes?: number;
  /** CPU affinity. */
  affinityCpus?: WindowsCpuGroupAffinity[];
}

/** CRI `WindowsCpuGroupAffinity`. */
export interface WindowsCpuGroupAffinity {
  /** CPU mask within the group. */
  cpuMask?: number;
  /** Processor group. */
  cpuGroup?: number;
}

/** CRI `WindowsContainerSecurityContext`. */
export interface WindowsContainerSecurityContext {
  /** User name. */
  runAsUsername?: string;
  /** GMSA credential spec. */
  credentialSpec?: string;
  /** HostProcess container. */
  hostProcess?: boolean;
}

// core/src/runtime.rs

/**
 * The runtime's view of a pod: its sandboxes (newest first) and every container it
 * still knows (newest first; several entries may share a name).
 */
export interface RuntimeStatus {
  /** Pod UID. */
  id?: string;
  /** Pod name. */
  name?: string;
  /** Pod namespace. */
  namespace?: string;
  /** Pod IPs as the runtime reports them. */
  ips?: string[];
  /** CRI `PodSandboxStatus`es, newest first (index 0 is the latest). */
  sandboxStatuses?: SandboxStatus[];
  /** Container statuses, newest first. */
  containerStatuses?: ContainerStatus[];
}

/** CRI `PodSandboxStatus` (proto3 JSON). */
export interface SandboxStatus {
  /** Sandbox id. */
  id?: string;
  /** Sandbox metadata (name, uid, namespace, attempt). */
  metadata?: SandboxMetadata | null;
  /** Ready or not. */
  state?: SandboxState;
  /** Creation time, nanoseconds since the epoch. */
  createdAt?: number;
  /** Network status. Absent and `ip: ""` are different facts. */
  network?: SandboxNetwork | null;
  /** Linux-specific status (namespace modes). */
  linux?: LinuxSandboxStatus | null;
  /** Sandbox labels. */
  labels?: { [key: string]: string };
  /** Sandbox annotations. */
  annotations?: { [key: string]: string };
  /** Runtime handler. */
  runtimeHandler?: string;
}

/** CRI `PodSandboxMetadata`. */
export interface SandboxMetadata {
  /** Pod name. */
  name?: string;
  /** Sandbox uid. */
  uid?: string;
  /** Pod namespace. */
  namespace?: string;
  /** Attempt number (0 for the first sandbox). */
  attempt?: number;
}

/** CRI `PodSandboxState`. */
export type SandboxState =
  /** `SANDBOX_READY`. */
  | "SANDBOX_READY"
  /** `SANDBOX_NOTREADY`. */
  | "SANDBOX_NOTREADY";

/** CRI `PodSandboxNetworkStatus`. */
export interface SandboxNetwork {
  /** Primary IP ("" = the sandbox has no IP). */
  ip?: string;
  /** Further IPs. */
  additionalIps?: PodIp[];
}

/** CRI `PodIP`. */
export interface PodIp {
  /** The address. */
  ip?: string;
}

/** CRI `LinuxPodSandboxStatus`. */
export interface LinuxSandboxStatus {
  /** Namespace status. */
  namespaces?: SandboxNamespaces | null;
}

/** CRI `Namespace` (status form). */
export interface SandboxNamespaces {
  /** Namespace options. */
  options?: SandboxNamespaceOptions | null;
}

/** CRI `NamespaceOption` as read back from a sandbox. */
export interface SandboxNamespaceOptions {
  /** Network namespace mode (absent = POD). */
  network?: NamespaceMode;
  /** PID namespace mode. */
  pid?: NamespaceMode;
  /** IPC namespace mode. */
  ipc?: NamespaceMode;
  /** Target container id for `TARGET` mode. */
  targetId?: string;
}

/** CRI `NamespaceMode`. */
export type NamespaceMode =
  /** A namespace per pod (0). */
  | "POD"
  /** A namespace per container (1). */
  | "CONTAINER"
  /** The node's namespace (2). */
  | "NODE"
  /** Another container's namespace (3). */
  | "TARGET";

/** One container as the runtime reports it (`kubecontainer.Status`). */
export interface ContainerStatus {
  /** Runtime container id, `type://id`. */
  id?: string;
  /** Container name (matches a spec container, or not). */
  name?: string;
  /** The sandbox the container belongs to (absent = the latest sandbox). */
  podSandboxId?: string | null;
  /** Container state. */
  state?: ContainerState;
  /** Creation time. */
  createdAt?: Time | null;
  /** Start time. */
  startedAt?: Time | null;
  /** Finish time (the crash-loop back-off reference time). */
  finishedAt?: Time | null;
  /** Exit code (meaningful for `exited`). */
  exitCode?: number;
  /** Image as specified. */
  image?: string;
  /** Image id. */
  imageId?: string;
  /** Image reference. */
  imageRef?: string;
  /** The kubelet container hash recorded at creation (0 = absent). */
  hash?: number;
  /** Restart count recorded at creation. */
  restartCount?: number;
  /** Reason (e.g. `OOMKilled`). */
  reason?: string;
  /** Message. */
  message?: string;
  /** CRI `ContainerResources` as the runtime reports them (not read by decisions). */
  resources?: Json | null;
}

/** A container's state as the runtime reports it. */
export type ContainerState =
  /** Created, not started. */
  | "created"
  /** Running. */
  | "running"
  /** Exited. */
  | "exited"
  /** The runtime does not know. */
  | "unknown";

// core/src/request/node.rs

/** Node and kubelet facts for config generation (spec §2). Every key is optional. */
export interface NodeContext {
  /** Node name. */
  name?: string | null;
  /** Node addresses as the kubelet picks them (first: primary). Default `[]`. */
  hostIPs?: string[];
  /** `--node-ip` values; only the family of the first matters. Default `[]` (IPv4 first). */
  nodeIPs?: string[];
  /** Node allocatable resources. Default `{}`. */
  allocatable?: { [key: string]: Quantity };
  /** Machine memory in bytes. Default 16 GiB. */
  memoryCapacity?: number | null;
  /** Machine swap in bytes. Default 0. */
  swapCapacity?: number | null;
  /** `v1` or `v2`. Default `v2`. */
  cgroupVersion?: CgroupVersion | null;
  /** The swap cgroup controller exists. Default false. */
  swapControllerAvailable?: boolean | null;
  /** Huge page sizes the host supports, in host order. Default `[]`. */
  hugePageSizes?: string[];
  /** OS page size. Default 4096. */
  pageSize?: number | null;
  /** SELinux is enabled on the host. Default false. */
  selinuxEnabled?: boolean | null;
  /** Literal pod cgroup parent. Default: derived from the QoS class and `cgroupDriver`. */
  podCgroupParent?: string | null;
  /** `cgroupfs` or `systemd`, used to derive the cgroup parent. Default `cgroupfs`. */
  cgroupDriver?: CgroupDriver | null;
  /** KubeletConfiguration values. */
  kubelet?: KubeletSettings;
  /**
   * Content of the node's `/etc/hosts`, which host-network pods get (behind the
   * kubelet's header). Default: unknown (the plan's file step then copies the node's
   * file).
   */
  etcHosts?: string | null;
  /** The host's parsed resolv.conf. Default: empty. */
  hostDNS?: HostDns | null;
  /** Services visible to the kubelet (all namespaces). Default `[]`. */
  services?: Service[];
  /** The service lister has synced. Default true. */
  servicesSynced?: boolean | null;
  /** ConfigMaps of the pod's namespace by name (absent = NotFound). Default `{}`. */
  configMaps?: { [key: string]: ConfigMap };
  /** Secrets of the pod's namespace by name (absent = NotFound). Default `{}`. */
  secrets?: { [key: string]: Secret };
  /** Mounted volumes by pod volume name. Default: derived (see `VolumeInfo`). */
  volumes?: { [key: string]: VolumeInfo };
  /** Prepared subPath host paths by `<container>/<mountIndex>`. Default: derived. */
  subPathHostPaths?: { [key: string]: string };
  /** Pull and ImageStatus results by `container.image`. Default: ref = the image, no user. */
  images?: { [key: string]: ImageInfo };
  /** RuntimeClass handler. Default "". */
  runtimeHandler?: string | null;
  /**
   * Features the runtime handler reports (CRI `Status`). Default: recursive read-only
   * mounts supported, user namespaces not supported.
   */
  runtimeHandlerFeatures?: RuntimeHandlerFeatures | null;
  /** The user-namespace mapping allocated for a `hostUsers: false` pod. Default none. */
  userNamespace?: UserNamespace | null;
  /** GIDs from the pod's PV `pv.beta.kubernetes.io/gid` annotations. Default `[]`. */
  extraSupplementalGroups?: number[];
  /** Device-plugin / DRA results per container name. Default `{}`. */
  deviceAllocations?: { [key: string]: DeviceAllocation };
  /** CPU manager: container has exclusive CPUs. Default false for every container. */
  exclusiveCPUs?: { [key: string]: boolean };
  /** CPU/memory manager cpusets per container. Default none. */
  cpusets?: { [key: string]: CpuSet };
  /** Termination-log file ids (8 hex digits) per container. Default `00000000`. */
  terminationLogIds?: { [key: string]: string };
  /** Names of the files in each container's log directory (restart-count fallback). */
  logFiles?: { [key: string]: string[] };
  /**
   * Parsed env files for `fileKeyRef` (EnvFiles): volume name → path → key → value.
   * A path missing here is a file the kubelet cannot read (`couldn't parse env file`);
   * the volume itself must be mounted (`volumes` or a volume the pod declares).
   */
  envFiles?: { [key: string]: { [key: string]: { [key: string]: string } } };
}

/** cgroup hierarchy version. */
export type CgroupVersion =
  /** Legacy hierarchy. */
  | "v1"
  /** Unified hierarchy (the 1.37 default; v1 needs `failCgroupV1: false`). */
  | "v2";

/** Cgroup driver (only used to render the default cgroup parent). */
export type CgroupDriver =
  /** `/kubepods/burstable/pod<uid>`. */
  | "cgroupfs"
  /** `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice`. */
  | "systemd";

/** KubeletConfiguration values used by config generation. */
export interface KubeletSettings {
  /** Root directory. Default `/var/lib/kubelet`. */
  rootDir?: string | null;
  /** Pod log root. Default `/var/log/pods`. */
  podLogsDir?: string | null;
  /** Cluster domain. Default "" (stock kubelet; kubeadm sets `cluster.local`). */
  clusterDomain?: string | null;
  /** Cluster DNS servers. Default `[]`. */
  clusterDNS?: string[] | null;
  /** resolv.conf path ("" = none). Default `/etc/resolv.conf`. */
  resolvConf?: string | null;
  /** Enforce CFS quota. Default true. */
  cpuCFSQuota?: boolean | null;
  /** CFS period (a Go duration, used with CustomCPUCFSQuotaPeriod). Default `100ms`. */
  cpuCFSQuotaPeriod?: string | null;
  /** RuntimeDefault seccomp when a pod sets none. Default false. */
  seccompDefault?: boolean | null;
  /** Seccomp profile root. Default `<rootDir>/seccomp`. */
  seccompProfileRoot?: string | null;
  /** `memorySwap.swapBehavior`: "", `NoSwap` or `LimitedSwap`. Default "" (NoSwap). */
  memorySwapBehavior?: string | null;
  /** MemoryQoS throttling factor for `memory.high`. Default none (1.37: no throttling). */
  memoryThrottlingFactor?: number | null;
  /**
   * MemoryQoS reservation: `None` or `TieredReservation` (`memory.min` for
   * Guaranteed, `memory.low` for Burstable). Default `None`.
   */
  memoryReservationPolicy?: string | null;
  /**
   * `cgroupsPerQOS`: the kubelet makes the pod and QoS cgroups itself. Absent: the
   * plan does not describe them (a caller that does not manage cgroups); `true`: a plan
   * that creates the sandbox carries the pod's cgroup (`Plan::pod_cgroup`); `false`:
   * no pod cgroups.
   */
  cgroupsPerQOS?: boolean | null;
  /**
   * `podPidsLimit` (`--pod-max-pids`): the pod cgroup's pids limit; -1 or absent:
   * unlimited.
   */
  podPidsLimit?: number | null;
  /**
   * Absent: resolved as the kubelet does at start (true on cgroup v1, false on v2).
   * `null`: an unresolved nil, which the code treats as true.
   */
  singleProcessOOMKill?: boolean | null;
}

/** The host's parsed `resolv.conf`. */
export interface HostDns {
  /** `nameserver` lines. */
  servers?: string[];
  /** `search` entries. */
  searches?: string[];
  /** `options` entries. */
  options?: string[];
}

/**
 * A mounted volume as the volume manager reports it.
 *
 * A pod volume without an entry is taken as mounted at the kubelet's standard path
 * `<rootDir>/pods/<uid>/volumes/<plugin>/<name>` (plugin `kubernetes.io~<kind>`).
 */
export interface VolumeInfo {
  /** Host path of the mounted volume. */
  hostPath?: string;
  /** The volume itself is read-only. */
  readOnly?: boolean;
  /** The volume needs SELinux relabelling. */
  selinuxRelabel?: boolean;
  /** Device symlink for a block volume (`volumeDevices`). */
  blockDevicePath?: string | null;
  /** Image reference for an image volume. */
  image?: string | null;
}

/** Result of pulling an image and of CRI ImageStatus. */
export interface ImageInfo {
  /** Image reference the pull returned. Default: the container's image. */
  imageRef?: string | null;
  /** Numeric user of the image, if it has one. */
  uid?: number | null;
  /** User name of the image (when it is not numeric). */
  username?: string;
}

/** Features the runtime handler reports (CRI `RuntimeHandlerFeatures`). */
export interface RuntimeHandlerFeatures {
  /** Recursive read-only mounts. */
  recursiveReadOnlyMounts?: boolean;
  /** User namespaces. */
  userNamespaces?: boolean;
}

/** What device plugins and DRA give one container (`RunContainerOptions`). */
export interface DeviceAllocation {
  /** Devices. */
  devices?: AllocatedDevice[];
  /** Mounts. */
  mounts?: AllocatedMount[];
  /** Environment variables (before the pod's). */
  envs?: NameValue[];
  /** Annotations. */
  annotations?: NameValue[];
  /** CDI device names. */
  cdiDevices?: string[];
}

/** A device from a device plugin. */
export interface AllocatedDevice {
  /** Host path. */
  pathOnHost?: string;
  /** Container path. */
  pathInContainer?: string;
  /** cgroup permissions. */
  permissions?: string;
}

/** A mount from a device plugin. */
export interface AllocatedMount {
  /** Host path. */
  hostPath?: string;
  /** Container path. */
  containerPath?: string;
  /** Read-only. */
  readOnly?: boolean;
}

/** A name/value pair. */
export interface NameValue {
  /** Name. */
  name?: string;
  /** Value. */
  value?: string;
}

/** cpuset values the CPU and memory managers apply before creation. */
export interface CpuSet {
  /** `cpusetCpus`. */
  cpus?: string;
  /** `cpusetMems`. */
  mems?: string;
}

// core/src/plan/backoff.rs

/** One back-off entry, keyed as the kubelet keys it. */
export interface BackoffRecord {
  /** The back-off key (`backoff::backoff_key`). */
  key: string;
  /** The container the key belongs to (informational). */
  container?: string;
  /** Current delay in seconds. */
  delaySeconds: number;
  /** When the entry was last updated (the sync's `now` at that time). */
  lastUpdate: Time;
}

/** A start held back by crash-loop or image-pull back-off. */
export interface HeldBack {
  /** Container name. */
  container: string;
  /** Which list the container is in. */
  kind?: ContainerKind;
  /** Index in that list. */
  index?: number;
  /** Seconds until the back-off expires (rounded up). */
  waitSeconds: number;
  /** When the back-off expires: the newest exited instance's `finishedAt` + the delay. */
  until?: Time;
  /** The current delay in seconds. */
  delaySeconds: number;
  /**
   * Which back-off holds the start: absent = `CrashLoopBackOff` (the container's
   * crash-loop back-off), `ImagePullBackOff` (the image-pull back-off of its image).
   */
  reason?: string;
}

// core/src/plan/status.rs

/** The `kubectl get pods` row (the API server's pod table printer), as strings. */
export interface KubectlRow {
  /** NAME: `metadata.name`. */
  name: string;
  /** READY: `"<ready>/<total>"`. */
  ready: string;
  /** STATUS, e.g. `Running`, `Init:0/2`, `CrashLoopBackOff`, `Completed`. */
  status: string;
  /** RESTARTS: `"3"` or `"3 (10s ago)"`. */
  restarts: string;
  /** AGE, e.g. `"5m"`; `"<unknown>"` without a creation time (or without `now`). */
  age: string;
  /** The Table row's conditions (not printed by kubectl). */
  conditions: RowCondition[];
  /** IP (`-o wide` only). */
  ip?: string;
  /** NODE (`-o wide` only). */
  node?: string;
  /** NOMINATED NODE (`-o wide` only). */
  nominatedNode?: string;
  /** READINESS GATES (`-o wide` only). */
  readinessGates?: string;
}

/** One Table row condition (`Completed` for terminal pods). */
export interface RowCondition {
  /** Always `Completed`. */
  type: string;
  /** Always `True`. */
  status: string;
  /** `Succeeded` or `Failed`. */
  reason: string;
  /** Human text. */
  message: string;
}

/** One reason-cache entry: the error of the last sync's failed start of a container. */
export interface ReasonCacheEntry {
  /** The waiting reason, e.g. `CrashLoopBackOff`, `CreateContainerConfigError`. */
  reason: string;
  /** The message shown with it. */
  message?: string;
}

/** The kubelet's reason cache for one pod: container name → last start error. */
export type ReasonCache = { [key: string]: ReasonCacheEntry };

// core/src/plan/hook.rs

/** Which hook. */
export type HookKind =
  /** `lifecycle.postStart`. */
  | "postStart"
  /** `lifecycle.preStop`. */
  | "preStop";

/**
 * A handler as the runtime (exec), the prober's HTTP client (httpGet) or the kubelet
 * itself (sleep) would run it.
 */
export type HookHandler =
  /** `ExecSync` in the container, no timeout (the kubelet passes 0). */
  | {
    type: "exec";
    /** The command. */
    command: string[];
  }
  /**
   * One HTTP GET. Only a transport error fails the hook (the status code does not
   * count); an HTTPS request answered in plain HTTP is retried over HTTP without the
   * `Authorization` header.
   */
  | {
    type: "httpGet";
    /** Scheme, lower-case (`http` by default). */
    scheme: string;
    /** Host: `httpGet.host`, else the pod's first IP. */
    host: string;
    /** Resolved port (named ports looked up in the container's ports). */
    port: number;
    /** Path. */
    path: string;
    /** The URL. */
    url: string;
    /** Headers in order, `User-Agent` and `Accept` defaulted. */
    headers: [string, string][];
  }
  /**
   * Sleep for `seconds` (gate PodLifecycleSleepAction, GA). Fails only if the container
   * terminates first.
   */
  | {
    type: "sleep";
    /** Seconds. */
    seconds: number;
  };

/** What follows when a hook fails. */
export interface OnHookFailure {
  /** The event recorded (never with the handler's message, so secrets do not leak). */
  event: Event;
  /** postStart: the container is killed with this reason / message. */
  killReason?: KillReason;
  /** postStart: the kill message (`Killing` event text). */
  killMessage?: string;
  /**
   * postStart: the start's error string (waiting reason); its message is the handler's
   * failure message (`failure_message`).
   */
  startError?: string;
  /** preStop: the stop goes on regardless. */
  stopContinues: boolean;
}

/** A hook as a plan step. */
export interface HookStep {
  /** postStart or preStop. */
  hook: HookKind;
  /** The container. */
  container: string;
  /**
   * preStop: the runtime id of the container being stopped (absent for postStart: the
   * id is the one `CreateContainer` returns).
   */
  containerId?: string;
  /** The handler to run; `None` when it cannot run (see `invalid`). */
  handler: HookHandler | null;
  /** Why the handler cannot run: the hook fails at once with this message. */
  invalid?: string;
  /** postStart: `None` (no timeout); preStop: the grace period it may use. */
  timeoutSeconds: number | null;
  /** What follows on failure. */
  onFailure: OnHookFailure;
}

/** What the executor reports after carrying out a hook step (request `hookResults`). */
export interface HookResult {
  /** The runtime id of the container the hook ran in (`type://id`). */
  containerId: string;
  /** Which hook. */
  hook: HookKind;
  /**
   * The handler's error (`handlerRunner.Run`'s error, e.g. `command terminated with
   * exit code 1`); absent or empty = the hook succeeded.
   */
  error?: string | null;
  /** The handler's output (exec) that goes with the error. */
  message?: string | null;
  /**
   * How long the hook ran, in milliseconds (preStop: the kubelet subtracts the whole
   * seconds from the grace period).
   */
  elapsedMillis?: number | null;
  /** preStop: the grace period the executor gave `StopContainer` afterwards. */
  stopGracePeriodSeconds?: number | null;
}

// core/src/plan/image.rs

/**
 * What the node's image service reports (request field `images`): tag-defaulted name →
 * imageRef, as CRI `ImageStatus` / `ListImages` answer them. Giving it turns the image
 * manager on.
 */
export interface ImagesReport {
  /** Tag-defaulted name (`busybox:latest`, not normalised) → imageRef. */
  present?: { [key: string]: string };
  /** Names whose `ImageStatus` fails, with the error text. */
  inspectErrors?: { [key: string]: string };
  /**
   * Model runtime only (`core::sim`): scripted registry faults by image as written
   * (the playground's and tests' "pull fails" control). `plan` ignores it; a real
   * executor never sends it.
   */
  registry?: { [key: string]: RegistryFault };
}

/** How the model registry answers pulls of one image (`core::sim`). */
export interface RegistryFault {
  /** What goes wrong. */
  fault: PullFault;
  /** How many more pulls fail; absent = every pull until the fault is cleared. */
  times?: number | null;
}

/** A scripted pull failure. */
export type PullFault =
  /** The registry cannot be reached. */
  | "registryDown"
  /** The registry does not have the image (wrong name or tag). */
  | "notFound";

/** An annotation of the `ImageSpec`. */
export interface Annotation {
  /** Key. */
  name: string;
  /** Value. */
  value: string;
}

/** The `ImageSpec` sent with `ImageStatus` and `PullImage`. */
export interface PullImageSpec {
  /** The tag-defaulted image (`busybox` → `busybox:latest`; not normalised). */
  image: string;
  /** Every pod annotation (sorted by name; the kubelet iterates a Go map). */
  annotations: Annotation[];
  /** The runtime handler `startContainer` resolved (`""` = default). */
  runtimeHandler: string;
}

/** CRI `AuthConfig` of one `PullImage` request (the fields the keyring fills). */
export interface AuthConfig {
  /** User name. */
  username?: string;
  /** Password or token. */
  password?: string;
}

/** One image back-off entry, threaded request → plan → next request. */
export interface ImageBackoffRecord {
  /** `"<pod UID>_<image as written>"`. */
  key: string;
  /** The current period in seconds. */
  delaySeconds: number;
  /** When the entry was last updated (the time of the last failed pull). */
  lastUpdate: Time;
  /**
   * `"<error kind>: <message>"` of the last failed pull, until the next pull attempt
   * (the kubelet's `prevPullErrMsg`); appended to the back-off message.
   */
  previousError?: string | null;
}

/** What the runtime answered to a `PullImage` (or the QPS limiter in front of it). */
export interface PullResult {
  /** The imageRef on success. */
  imageRef?: string | null;
  /** The error text on failure. */
  error?: string | null;
  /** How long the pull took, milliseconds (event text). */
  pullMillis?: number;
  /** Including the wait in the puller's queue, milliseconds. */
  totalMillis?: number;
  /** `GetImageSize` (bytes). */
  imageSize?: number;
}

/** A pull result as the executor reports it in the next request (`pullResults[]`). */
export type PullResultRecord = {
  /** The image as written in the container. */
  image: string;
  /** The `PullImage` step's back-off key (`<pod UID>_<image>`); absent = derived. */
  backoffKey?: string | null;
  /** When the pull ended. */
  at: Time;
} & PullResult;

// core/src/images/credentials.rs

/** Who a credential belongs to (`credentialprovider.CredentialSource`). */
export interface Coordinates {
  /** Namespace. */
  namespace?: string;
  /** Name. */
  name?: string;
  /** UID. */
  uid?: string;
}

/** A credential's source; absent = node-wide. */
export interface CredentialSource {
  /** A pull secret. */
  secret?: Coordinates | null;
  /** A service account (credential providers with service-account tokens). */
  serviceAccount?: Coordinates | null;
}

/** One credential as the keyring returns it (`TrackedAuthConfig`). */
export interface TrackedCredential {
  /** User name. */
  username?: string;
  /** Password or token. */
  password?: string;
  /** Where it comes from; `None` = node-wide. */
  source?: CredentialSource | null;
  /**
   * The kubelet's hash of the auth config (given by the caller; podplan does not compute
   * it).
   */
  authConfigHash?: string;
}

// core/src/images/manager.rs

/**
 * The pull-record check (`ImagePullManager.MustAttemptImagePull`, gate
 * KubeletEnsureSecretPulledImages): must a present image be pulled again to verify the
 * pod's credentials?
 */
export type PullRecordCheck =
  /** Fixed answers. */
  | PullRecordOracle
  /** The kubelet's own records and verification policy. */
  | PullRecords;

/**
 * The answers of the kubelet's test mock and of a caller that knows them: all images
 * accessible, accessible to given secrets / service accounts per image (as written), or
 * one fixed answer.
 */
export interface PullRecordOracle {
  /**
   * Every present image is accessible (no verification pull). This is also the
   * answer of the real manager's default policy for preloaded images.
   */
  allowAll?: boolean;
  /** Image → secrets whose coordinates make it accessible. */
  allowedSecrets?: { [key: string]: Coordinates[] };
  /** Image → service accounts that make it accessible. */
  allowedServiceAccounts?: { [key: string]: Coordinates[] };
  /** Always this answer to "must pull?". */
  fixedAnswer?: boolean | null;
}

// core/src/plan/worker.rs

/** The pod worker's phase for a pod (`podWorkerLoop`): which sync the plan is. */
export type WorkerPhase =
  /** `SyncPod`: set the pod up (the plan's usual content). */
  | "syncing"
  /** `SyncTerminatingPod`: stop what runs; nothing is started. */
  | "terminating"
  /** `SyncTerminatedPod` (and the cleanup that follows): nothing runs any more. */
  | "terminated"
  /** The worker may not start the pod yet (`allowPodStart`): nothing is done. */
  | "waiting"
  /**
   * The worker will never start the pod (`allowPodStart`: terminated before it
   * started): nothing is done.
   */
  | "neverStarts";

/**
 * `KillPodOptions` from another part of the kubelet (eviction, preemption, node
 * shutdown): terminate the pod.
 */
export interface KillPodOptions {
  /**
   * `PodTerminationGracePeriodSecondsOverride`: a shorter grace period (it only ever
   * shortens).
   */
  gracePeriodSecondsOverride?: number | null;
  /**
   * The eviction manager evicts the pod: its status becomes phase `Failed`, reason
   * `reason` (default `Evicted`), `message`, and a `DisruptionTarget` condition
   * (`TerminationByKubelet`).
   */
  evict?: boolean;
  /** The status reason the kill sets (`PodStatusFunc`); eviction: `Evicted`. */
  reason?: string | null;
  /** The status message the kill sets, e.g. `The node was low on resource: memory. …`. */
  message?: string | null;
}

/** What the pod worker knows of one pod UID (`podSyncStatus`). */
export interface WorkerPodStatus {
  /** `fullname`: `<name>_<namespace>`. */
  fullname: string;
  /** Termination was requested (`terminatingAt` set). */
  terminationRequested?: boolean;
  /** Termination finished (`terminatedAt` set). */
  terminated?: boolean;
}

/**
 * Extension `podWorker` of the request: the pod worker's state, for the phases after
 * `SyncPod` and for static pods. Absent = a worker that syncs the pod (it is started,
 * nothing asked it to stop).
 */
export interface PodWorkerState {
  /**
   * `podSyncStatus.gracePeriod`: the grace period the worker already terminates the
   * pod with (0 = none yet); a new one can only be shorter.
   */
  gracePeriodSeconds?: number;
  /** A kill request (`UpdatePod` with `SyncPodKill` and `KillPodOptions`). */
  kill?: KillPodOptions | null;
  /**
   * The pod was removed from the node's config (`HandlePodRemoves`: deleted from the
   * API server and gone, or a static pod's manifest removed).
   */
  removed?: boolean;
  /**
   * The worker already finished terminating the pod (`SyncTerminatingPod` returned):
   * the next sync is `SyncTerminatedPod` even if the runtime still reports a ready
   * sandbox. Absent: derived from the runtime (nothing runs, no sandbox is ready).
   */
  terminatingDone?: boolean;
  /**
   * `podSyncStatuses` by pod UID (only read for static pods; the pod itself needs no
   * entry unless it has one).
   */
  pods?: { [key: string]: WorkerPodStatus };
  /** `startedStaticPodsByFullname`. */
  startedStaticPods?: { [key: string]: string };
  /** `waitingToStartStaticPodsByFullname`, in queue order. */
  waitingToStartStaticPods?: { [key: string]: string[] };
}

// core/src/plan/actions.rs

/** The kubelet's `podActions` (contract field names). */
export interface PodActions {
  /** Stop the whole pod (containers, then sandbox). */
  killPod: boolean;
  /** Create a new sandbox after the kill. */
  createSandbox: boolean;
  /** The current sandbox's id ("" if none or replaced for a namespace mismatch). */
  sandboxId: string;
  /** Attempt number of the sandbox to create (or of the current one). */
  attempt: number;
  /** Init-container indices to start, ascending. */
  initContainersToStart: number[];
  /** Regular-container indices to start. */
  containersToStart: number[];
  /** Containers to stop, keyed by runtime container id. */
  containersToKill: { [key: string]: ContainerToKill };
  /** Ephemeral-container indices to start. */
  ephemeralContainersToStart: number[];
  /**
   * In-place resize work per resource (`cpu`, `memory`), decreases first.
   * `None` when the pod may not be resized in place.
   */
  containersToUpdate?: { [key: string]: ContainerToUpdate[] };
  /** The pod-level cgroup must be updated. */
  updatePodResources: boolean;
  /** Pod-level resources differ from the actuated ones. */
  updatePodLevelResources: boolean;
  /** RestartAllContainers path: containers to kill (if `kill`) and remove, in order. */
  containersToReset?: ContainerToReset[];
}

/** Kill reason (`containerKillReason`); it selects the grace period at kill time. */
export type KillReason =
  /** Spec changed, or a resize needs a restart (`""`). */
  | ""
  /** Startup probe failed. */
  | "StartupProbe"
  /** Liveness probe failed. */
  | "LivenessProbe"
  /** postStart hook failed. */
  | "FailedPostStartHook"
  /** The container is in unknown state. */
  | "Unknown"
  /** RestartAllContainers. */
  | "RestartAllContainers";

/** One entry of `containersToKill`. */
export interface ContainerToKill {
  /** Container name. */
  name: string;
  /** Kill reason. */
  reason: KillReason;
  /** The kubelet's kill message. */
  message: string;
}

/** Resource values compared by in-place resize (memory in bytes, CPU in millicores). */
export interface ResizeResources {
  /** Memory limit, bytes. */
  memoryLimit: number;
  /** Memory request, bytes. */
  memoryRequest: number;
  /** CPU limit, millicores. */
  cpuLimit: number;
  /** CPU request, millicores. */
  cpuRequest: number;
}

/** One entry of `containersToUpdate[resource]`. */
export interface ContainerToUpdate {
  /** Container name. */
  name: string;
  /** Runtime container id. */
  containerId: string;
  /** Resources wanted. */
  desired: ResizeResources;
  /** Resources actuated now. */
  current: ResizeResources;
}

/** One entry of `containersToReset`. */
export interface ContainerToReset {
  /** Container name. */
  name: string;
  /** Runtime container id. */
  containerId: string;
  /** Kill (grace 0) before removing. */
  kill: boolean;
}

// core/src/plan/decision.rs

/** What a decision is about, serialised as the contract's camelCase string. */
export type Action =
  /** `killPod`: stop the whole pod (containers, then sandbox). */
  | "killPod"
  /** `createSandbox`: run a new sandbox. */
  | "createSandbox"
  /** `startInitContainer`: start an init container (classic or sidecar). */
  | "startInitContainer"
  /** `startContainer`: start a regular container. */
  | "startContainer"
  /** `startEphemeralContainer`: start an ephemeral container. */
  | "startEphemeralContainer"
  /** `killContainer`: stop one container. */
  | "killContainer"
  /** `updateResources`: resize a container or the pod in place. */
  | "updateResources"
  /** `resetContainer`: kill and remove a container (RestartAllContainers). */
  | "resetContainer"
  /** `keepContainer`: a notable non-action, the container is left as it is. */
  | "keepContainer"
  /**
   * `wait`: nothing can be done on this sync (a probe, a back-off, a failing init
   * container).
   */
  | "wait"
  /** `doNotRestart`: the restart policy says the exited container stays exited. */
  | "doNotRestart";

/** Why an action was chosen: a machine-readable reason and a human message naming the rule. */
export interface Decision {
  /** The action (`Action`). */
  action: Action;
  /** The container concerned, if any. */
  container?: string;
  /** Machine-readable reason, e.g. `LivenessProbeFailed`. */
  reason: string;
  /** Human explanation naming the rule that fired. */
  message: string;
  /** Whether the decision took effect (extension; see `Effect`). */
  effect: Effect;
  /**
   * `Effect::Superseded` (and `Effect::NotCarriedOut` when a decision explains
   * why): the index in `decisions` of the later decision that overrode this one
   * (extension).
   */
  supersededBy?: number;
  /**
   * The index in `steps` of the step that carries the decision out, if any
   * (extension). Sorting by it gives the order in which the kubelet acts.
   */
  step?: number;
}

/** What became of a decision by the end of the sync (extension). */
export type Effect =
  /**
   * `effective`: `podActions` holds it and `SyncPod` carries it out (or, for a
   * non-action such as `wait` or `keepContainer`, it holds).
   */
  | "effective"
  /**
   * `superseded`: a later rule of `computePodActions` overrode it
   * (`supersededBy`); `podActions` does not hold it.
   */
  | "superseded"
  /**
   * `notCarriedOut`: `podActions` holds it but `SyncPod` does not carry it out on
   * this sync (crash-loop back-off, a config error, an init container before it that
   * could not start).
   */
  | "notCarriedOut"
  /** `noop`: set, but there is nothing to do (e.g. `killPod` before anything exists). */
  | "noop";

// core/src/plan/cgroup.rs

/**
 * `cm.ResourceConfig`: what a cgroup is configured with; an absent value is left as the
 * kernel has it.
 */
export interface ResourceConfig {
  /** `cpu.shares` (v1; v2 writes its `cpu.weight`). */
  cpuShares?: number;
  /** CFS quota in microseconds per period (-1: unlimited; 0: not set). */
  cpuQuota?: number;
  /** CFS period in microseconds. */
  cpuPeriod?: number;
  /** Memory limit in bytes (0: not set). */
  memory?: number;
  /** Maximum number of processes (-1 or 0: unlimited). */
  pidsLimit?: number;
  /** Huge page limits: page size as the cgroup files name it (`2MB`) → bytes. */
  hugePageLimits?: { [key: string]: number };
  /** cgroup v2 files written as they are (`memory.min`, `memory.low`). */
  unified?: { [key: string]: string };
}

/** The pod's cgroup as `SyncPod` ensures it before the pod's sandbox exists. */
export interface PodCgroup {
  /**
   * The cgroup's name as the cgroup driver spells it: the sandbox's cgroup parent
   * (`/kubepods/burstable/pod<uid>`).
   */
  name: string;
  /** What it is configured with. */
  resources: ResourceConfig;
}

// core/src/plan/config.rs

/** A generated container config in the plan. */
export interface ContainerConfigEntry {
  /** Container name. */
  name: string;
  /** `init`, `regular` or `ephemeral`. */
  type: string;
  /** Restart count carried in the config's metadata. */
  restartCount: number;
  /** CRI `ContainerConfig`. */
  config: ContainerConfig;
  /**
   * Generated before the sandbox this sync creates exists: the pod IPs
   * (`status.podIP(s)` env values, the `/etc/hosts` mount) come from its status, so
   * complete it (`complete`) after `RunPodSandbox`.
   */
  dependsOnNewSandbox?: boolean;
}

// core/src/plan/step.rs

/**
 * One CRI operation: the op (`op` on the wire, first) and its payload, the fields that
 * go with that op (camelCase, absent ones omitted).
 */
export type Step =
  /**
   * `KillPod`: stop every running container (`kills`, in the termination order), then
   * every sandbox (`sandboxIds`).
   */
  | ({ op: "KillPod" } & KillPodStep)
  /** `KillContainer` (`StopContainer`, after the container's preStop hook). */
  | ({ op: "KillContainer" } & KillContainerStep)
  /** `RemoveContainer`. */
  | ({ op: "RemoveContainer" } & RemoveContainerStep)
  /** `RunPodSandbox` (with `plan.sandboxConfig`). */
  | ({ op: "RunPodSandbox" } & RunPodSandboxStep)
  /** `UpdatePodSandboxResources` + the pod cgroup. */
  | ({ op: "UpdatePodSandboxResources" } & UpdatePodSandboxResourcesStep)
  /** `UpdateContainerResources`. */
  | ({ op: "UpdateContainerResources" } & UpdateContainerResourcesStep)
  /** `CreateContainer` (with the container's entry in `plan.containerConfigs`). */
  | ({ op: "CreateContainer" } & CreateContainerStep)
  /** `StartContainer`, then the container's postStart hook. */
  | ({ op: "StartContainer" } & StartContainerStep)
  /**
   * `PullImage`: pull the container's image, then re-plan. It replaces the container's
   * `CreateContainer`/`StartContainer` in this plan.
   */
  | ({ op: "PullImage" } & PullImageStep)
  /**
   * Not a CRI call: the directories and files the kubelet writes on the node before the
   * next `RunPodSandbox` (no container) or `CreateContainer` (the container's).
   */
  | ({ op: "WriteNodeFiles" } & WriteNodeFilesStep)
  /**
   * `RemovePodSandbox`: a terminated pod's sandbox, once it holds no container
   * (`containerGC.evictSandboxes`).
   */
  | ({ op: "RemovePodSandbox" } & RemovePodSandboxStep)
  /**
   * Not a CRI call: what a terminated pod leaves on the node (the pod's cgroup, log
   * directory, pod directory), removed in order.
   */
  | ({ op: "CleanupPod" } & CleanupPodStep);

/** The payload of `Step::KillPod`. */
export interface KillPodStep {
  /** The current sandbox (the newest). */
  sandboxId?: string;
  /** The pod's grace period (`SyncTerminatingPod`: the effective one). */
  gracePeriodSeconds?: number;
  /** The running containers it stops. */
  containers?: string[];
  /**
   * One `killContainer` per running container, in the kubelet's termination order
   * (regular containers first, in parallel; then sidecars in reverse spec order), each
   * with its grace period and preStop hook. Executors carry these out as they are and
   * compute nothing (see `super::ContainerKill`); the sandboxes (`sandboxIds`) are
   * stopped when every kill is done.
   */
  kills?: ContainerKill[];
  /** Every sandbox of the pod, stopped (`StopPodSandbox`) after the kills. */
  sandboxIds?: string[];
  /** Machine-readable reason of the kill. */
  reason?: string;
  /** Human message (the kill message the kubelet records). */
  message?: string;
  /**
   * The `preStop` hooks of the running containers it stops (one per container that has
   * one, with its `containerId`), each followed by that container's `StopContainer`
   * with what is left of its grace period.
   */
  preStops?: HookStep[];
}

/** The payload of `Step::KillContainer`. */
export interface KillContainerStep {
  /** The container concerned. */
  container?: string;
  /** Runtime container id of the container stopped. */
  containerId?: string;
  /** Kill grace period in seconds (what `StopContainer` gets without a preStop hook). */
  gracePeriodSeconds?: number;
  /** Machine-readable kill reason. */
  reason?: string;
  /** Human message (the kill message the kubelet records). */
  message?: string;
  /**
   * The `preStop` hook that runs before `StopContainer`, with `timeoutSeconds` = the
   * grace period. `StopContainer` then gets `max(2, grace − whole seconds the hook
   * took)`. Absent when the container has no preStop hook or the grace period is 0.
   */
  preStop?: HookStep;
}

/** The payload of `Step::RemoveContainer`. */
export interface RemoveContainerStep {
  /** The container concerned. */
  container?: string;
  /** Runtime container id of the container removed. */
  containerId?: string;
  /** Machine-readable removal cause. */
  reason?: string;
  /** Human message (what the step does and why). */
  message?: string;
}

/** The payload of `Step::RunPodSandbox`. */
export interface RunPodSandboxStep {
  /** The sandbox attempt (`PodSandboxMetadata.attempt`). */
  attempt?: number;
  /** Human message (what the step does and why). */
  message?: string;
}

/** The payload of `Step::UpdatePodSandboxResources`. */
export interface UpdatePodSandboxResourcesStep {
  /** Resource updated (`cpu` or `memory`). */
  resource?: string;
  /** Human message (what the step does and why). */
  message?: string;
  /** The exact CRI request, `{podSandboxId, overhead, resources}` (proto3 JSON). */
  request?: StepRequest;
}

/** The payload of `Step::UpdateContainerResources`. */
export interface UpdateContainerResourcesStep {
  /** The container concerned. */
  container?: string;
  /** Runtime container id of the container updated. */
  containerId?: string;
  /** Resource updated (`cpu` or `memory`). */
  resource?: string;
  /** Human message (what the step does and why). */
  message?: string;
  /** The exact CRI request, `{containerId, linux}` (proto3 JSON). */
  request?: StepRequest;
}

/** The payload of `Step::CreateContainer`. */
export interface CreateContainerStep {
  /** The container concerned. */
  container?: string;
  /** Which spec list the container is in. */
  kind?: ContainerKind;
  /** Index in that list. */
  index?: number;
  /** The sandbox the container goes into (empty when it is the one this plan creates). */
  sandboxId?: string;
  /** The restart count (`ContainerMetadata.attempt`). */
  attempt?: number;
  /** Human message (what the step does and why). */
  message?: string;
}

/** The payload of `Step::StartContainer`. */
export interface StartContainerStep {
  /** The container concerned. */
  container?: string;
  /** Which spec list the container is in. */
  kind?: ContainerKind;
  /** Index in that list. */
  index?: number;
  /** With `postStart`: the grace period of the kill that follows a failed hook. */
  gracePeriodSeconds?: number;
  /**
   * The hooks depend on the sandbox this sync creates (its pod IPs): complete the step
   * from the new sandbox's status (`complete`) before carrying it out.
   */
  dependsOnNewSandbox?: boolean;
  /**
   * The container's `postStart` hook: the hook to run right after the start
   * (`startContainer` step 4) and what follows when it fails. `gracePeriodSeconds` and
   * `preStop` then describe the kill that follows a failure.
   */
  postStart?: HookStep;
  /** With `postStart`: the `preStop` hook of the kill that follows a failed hook. */
  preStop?: HookStep;
}

/** The payload of `Step::PullImage`. */
export interface PullImageStep {
  /** The container concerned. */
  container?: string;
  /** Which spec list the container is in. */
  kind?: ContainerKind;
  /** Index in that list. */
  index?: number;
  /** Human message (what the step does and why). */
  message?: string;
  /** The image as written in the container. */
  image?: string;
  /** The CRI `ImageSpec` (tag-defaulted image, pod annotations, runtime handler). */
  imageSpec?: PullImageSpec;
  /**
   * One request per entry, in order, stopping at the first success; empty = one
   * anonymous request.
   */
  auth?: AuthConfig[];
  /** Where the `PodSandboxConfig` sent with the pull is (`plan.sandboxConfig`). */
  sandboxConfig?: string;
  /**
   * The image-pull back-off key (`<pod UID>_<image>`), to report back in
   * `pullResults`.
   */
  backoffKey?: string;
}

/** The payload of `Step::WriteNodeFiles`. */
export interface WriteNodeFilesStep {
  /** The container whose `CreateContainer` follows (absent: the pod's log directory). */
  container?: string;
  /** Which spec list the container is in. */
  kind?: ContainerKind;
  /** Index in that list. */
  index?: number;
  /** Human message (what the step does and why). */
  message?: string;
  /** What to create, in order. */
  files?: NodeFile[];
  /**
   * The step's content depends on the sandbox this sync creates (its pod IPs): complete
   * it from the new sandbox's status (`complete`) before carrying it out.
   */
  dependsOnNewSandbox?: boolean;
}

/** The payload of `Step::RemovePodSandbox`. */
export interface RemovePodSandboxStep {
  /** The sandbox removed. */
  sandboxId?: string;
  /** Machine-readable removal cause. */
  reason?: string;
  /** Human message (what the step does and why). */
  message?: string;
}

/** The payload of `Step::CleanupPod`. */
export interface CleanupPodStep {
  /** What is removed from the node, in order. */
  paths?: CleanupPath[];
  /** Machine-readable cause. */
  reason?: string;
  /** Human message (what the step does and why). */
  message?: string;
}

// core/src/events.rs

/** One event. */
export interface Event {
  /** `Normal` or `Warning`. */
  type: string;
  /** Event reason, e.g. `SandboxChanged`. */
  reason: string;
  /** Event message. */
  message: string;
  /** The container the event is about (absent for pod-level events). */
  container?: string;
}

// core/src/plan/report.rs

/** A per-container error that stops that container's creation. */
export interface ContainerError {
  /** Container name. */
  container: string;
  /** Kubelet reason, e.g. `CreateContainerConfigError`. */
  reason: string;
  /** Message. */
  message: string;
}

/** A non-fatal observation about the input. */
export interface Warning {
  /** JSON path of the input concerned. */
  path: string;
  /** What was noticed and what the engine did about it. */
  message: string;
}

// core/src/sim/probes.rs

/** Which probe a probe event (`sim::Event::Probe`) reports. */
export type ProbeKind =
  /** The liveness probe. */
  | "liveness"
  /** The startup probe. */
  | "startup"
  /** The readiness probe: recorded, it never restarts a container. */
  | "readiness";

// core/src/cri/enums.rs

/**
 * CRI `Protocol`.
 * Proto3 JSON: the value name (readers also accept its number).
 */
export type Protocol =
  /** TCP (0, the default). */
  | "TCP"
  /** UDP (1). */
  | "UDP"
  /** SCTP (2). */
  | "SCTP";

/**
 * CRI `MountPropagation`.
 * Proto3 JSON: the value name (readers also accept its number).
 */
export type MountPropagation =
  /** `rprivate` (0, the default). */
  | "PROPAGATION_PRIVATE"
  /** `rslave` (1). */
  | "PROPAGATION_HOST_TO_CONTAINER"
  /** `rshared` (2). */
  | "PROPAGATION_BIDIRECTIONAL";

/**
 * CRI `SupplementalGroupsPolicy`.
 * Proto3 JSON: the value name (readers also accept its number).
 */
export type SupplementalGroupsPolicy =
  /** Merge with the image's groups (0, the default). */
  | "Merge"
  /** Use only the given groups (1). */
  | "Strict";

/**
 * CRI `SecurityProfile.ProfileType`.
 * Proto3 JSON: the value name (readers also accept its number).
 */
export type ProfileType =
  /** The runtime's default profile (0, the default). */
  | "RuntimeDefault"
  /** No profile (1). */
  | "Unconfined"
  /** A profile installed on the node (2). */
  | "Localhost";

/**
 * CRI `Signal` (a container's stop signal).
 * Proto3 JSON: the value name (readers also accept its number).
 */
export type Signal =
  /** The runtime's default (0). */
  | "RUNTIME_DEFAULT"
  /** SIGABRT. */
  | "SIGABRT"
  /** SIGALRM. */
  | "SIGALRM"
  /** SIGBUS. */
  | "SIGBUS"
  /** SIGCHLD. */
  | "SIGCHLD"
  /** SIGCLD. */
  | "SIGCLD"
  /** SIGCONT. */
  | "SIGCONT"
  /** SIGFPE. */
  | "SIGFPE"
  /** SIGHUP. */
  | "SIGHUP"
  /** SIGILL. */
  | "SIGILL"
  /** SIGINT. */
  | "SIGINT"
  /** SIGIO. */
  | "SIGIO"
  /** SIGIOT. */
  | "SIGIOT"
  /** SIGKILL. */
  | "SIGKILL"
  /** SIGPIPE. */
  | "SIGPIPE"
  /** SIGPOLL. */
  | "SIGPOLL"
  /** SIGPROF. */
  | "SIGPROF"
  /** SIGPWR. */
  | "SIGPWR"
  /** SIGQUIT. */
  | "SIGQUIT"
  /** SIGSEGV. */
  | "SIGSEGV"
  /** SIGSTKFLT. */
  | "SIGSTKFLT"
  /** SIGSTOP. */
  | "SIGSTOP"
  /** SIGSYS. */
  | "SIGSYS"
  /** SIGTERM. */
  | "SIGTERM"
  /** SIGTRAP. */
  | "SIGTRAP"
  /** SIGTSTP. */
  | "SIGTSTP"
  /** SIGTTIN. */
  | "SIGTTIN"
  /** SIGTTOU. */
  | "SIGTTOU"
  /** SIGURG. */
  | "SIGURG"
  /** SIGUSR1. */
  | "SIGUSR1"
  /** SIGUSR2. */
  | "SIGUSR2"
  /** SIGVTALRM. */
  | "SIGVTALRM"
  /** SIGWINCH. */
  | "SIGWINCH"
  /** SIGXCPU. */
  | "SIGXCPU"
  /** SIGXFSZ. */
  | "SIGXFSZ"
  /** SIGRTMIN. */
  | "SIGRTMIN"
  /** SIGRTMIN+1. */
  | "SIGRTMINPLUS1"
  /** SIGRTMIN+2. */
  | "SIGRTMINPLUS2"
  /** SIGRTMIN+3. */
  | "SIGRTMINPLUS3"
  /** SIGRTMIN+4. */
  | "SIGRTMINPLUS4"
  /** SIGRTMIN+5. */
  | "SIGRTMINPLUS5"
  /** SIGRTMIN+6. */
  | "SIGRTMINPLUS6"
  /** SIGRTMIN+7. */
  | "SIGRTMINPLUS7"
  /** SIGRTMIN+8. */
  | "SIGRTMINPLUS8"
  /** SIGRTMIN+9. */
  | "SIGRTMINPLUS9"
  /** SIGRTMIN+10. */
  | "SIGRTMINPLUS10"
  /** SIGRTMIN+11. */
  | "SIGRTMINPLUS11"
  /** SIGRTMIN+12. */
  | "SIGRTMINPLUS12"
  /** SIGRTMIN+13. */
  | "SIGRTMINPLUS13"
  /** SIGRTMIN+14. */
  | "SIGRTMINPLUS14"
  /** SIGRTMIN+15. */
  | "SIGRTMINPLUS15"
  /** SIGRTMAX-14. */
  | "SIGRTMAXMINUS14"
  /** SIGRTMAX-13. */
  | "SIGRTMAXMINUS13"
  /** SIGRTMAX-12. */
  | "SIGRTMAXMINUS12"
  /** SIGRTMAX-11. */
  | "SIGRTMAXMINUS11"
  /** SIGRTMAX-10. */
  | "SIGRTMAXMINUS10"
  /** SIGRTMAX-9. */
  | "SIGRTMAXMINUS9"
  /** SIGRTMAX-8. */
  | "SIGRTMAXMINUS8"
  /** SIGRTMAX-7. */
  | "SIGRTMAXMINUS7"
  /** SIGRTMAX-6. */
  | "SIGRTMAXMINUS6"
  /** SIGRTMAX-5. */
  | "SIGRTMAXMINUS5"
  /** SIGRTMAX-4. */
  | "SIGRTMAXMINUS4"
  /** SIGRTMAX-3. */
  | "SIGRTMAXMINUS3"
  /** SIGRTMAX-2. */
  | "SIGRTMAXMINUS2"
  /** SIGRTMAX-1. */
  | "SIGRTMAXMINUS1"
  /** SIGRTMAX. */
  | "SIGRTMAX";

// core/src/cri/common.rs

/** CRI `LinuxContainerResources`: cgroup settings of a container (or of a sandbox). */
export interface LinuxContainerResources {
  /** CFS period, µs (0 = not set). */
  cpuPeriod?: number;
  /** CFS quota, µs (0 = not set, -1 = unlimited). */
  cpuQuota?: number;
  /** CPU shares. */
  cpuShares?: number;
  /** Memory limit, bytes (0 = not set). */
  memoryLimitInBytes?: number;
  /** OOM score adjustment. */
  oomScoreAdj?: number;
  /** Allowed CPUs (cpuset syntax). */
  cpusetCpus?: string;
  /** Allowed memory nodes. */
  cpusetMems?: string;
  /** HugeTLB limits per page size. */
  hugepageLimits?: HugepageLimit[];
  /** cgroup v2 files and values. */
  unified?: { [key: string]: string };
  /** Memory + swap limit, bytes (cgroup v1). */
  memorySwapLimitInBytes?: number;
}

/** CRI `HugepageLimit`. */
export interface HugepageLimit {
  /** Page size, e.g. `2MB`, `1GB`. */
  pageSize?: string;
  /** Limit in bytes. */
  limit?: number;
}

/** CRI `NamespaceOption`. */
export interface NamespaceOption {
  /** Network namespace. */
  network?: NamespaceMode;
  /** PID namespace. */
  pid?: NamespaceMode;
  /** IPC namespace. */
  ipc?: NamespaceMode;
  /** Target container for `TARGET` mode. */
  targetId?: string;
  /** User namespace of the pod. */
  usernsOptions?: UserNamespace | null;
}

/** CRI `UserNamespace`. */
export interface UserNamespace {
  /** `POD` (own user namespace) or `NODE` (host users). */
  mode?: NamespaceMode;
  /** UID mappings. */
  uids?: IdMapping[];
  /** GID mappings. */
  gids?: IdMapping[];
}

/** CRI `IDMapping`. */
export interface IdMapping {
  /** First id on the host. */
  hostId?: number;
  /** First id in the container. */
  containerId?: number;
  /** Range length. */
  length?: number;
}

/** CRI `SecurityProfile` (seccomp or AppArmor). */
export interface SecurityProfile {
  /** Profile type. */
  profileType?: ProfileType;
  /** The node profile (a path for seccomp, a name for AppArmor) when `Localhost`. */
  localhostRef?: string;
}

/** CRI `Int64Value` (an optional int64). */
export interface Int64Value {
  /** The value. */
  value?: number;
}

/** CRI `SELinuxOption`. */
export interface SeLinuxOption {
  /** SELinux user. */
  user?: string;
  /** SELinux role. */
  role?: string;
  /** SELinux type. */
  type?: string;
  /** SELinux level. */
  level?: string;
}

// core/src/images/pull_records.rs

/** `imagePullCredentialsVerificationPolicy`. */
export type VerificationPolicy =
  /** Never verify. */
  | "NeverVerify"
  /** Verify images the kubelet pulled (default). */
  | "NeverVerifyPreloadedImages"
  /** Verify unless allow-listed. */
  | "NeverVerifyAllowlistedImages"
  /** Always verify. */
  | "AlwaysVerify";

/** A recorded secret. */
export interface RecordedSecret {
  /** Namespace. */
  namespace?: string;
  /** Name. */
  name?: string;
  /** UID. */
  uid?: string;
  /** The credential's hash. */
  credentialHash?: string;
}

/** `ImagePullCredentials`: who may use an image. */
export interface CredentialMapping {
  /** Not pulled by the kubelet (seen present and exempt from verification). */
  preloaded?: boolean;
  /** Pulled without pod-specific credentials: every pod may use it. */
  nodePodsAccessible?: boolean;
  /** Secrets that pulled it (sorted, unique). */
  kubernetesSecrets?: RecordedSecret[];
  /** Service accounts that pulled it (sorted, unique). */
  kubernetesServiceAccounts?: Coordinates[];
}

/** The manager's state: pulled records per imageRef, pull intents, policy. */
export interface PullRecords {
  /** The verification policy. */
  policy?: VerificationPolicy;
  /** `preloadedImagesVerificationAllowlist`: exact names or `prefix/*` patterns. */
  allowlist?: string[];
  /** imageRef → image name → mapping. */
  pulled?: { [key: string]: { [key: string]: CredentialMapping } };
  /** Images with a pull intent (a pull in flight or interrupted). */
  intents?: string[];
}

// core/src/plan/kind.rs

/** Which list of the pod spec a container comes from. */
export type ContainerKind =
  /** `spec.initContainers`. */
  | "init"
  /** `spec.containers`. */
  | "regular"
  /** `spec.ephemeralContainers`. */
  | "ephemeral";

// core/src/cri/bytes.rs

/**
 * An environment value's bytes.
 *
 * JSON (podplan's readable form): a string when the bytes are UTF-8 (every value that
 * does not come from binary Secret data), else `{"base64": "<standard base64>"}`. The
 * strict proto3 form (base64 string always) is produced by `crate::cri::proto3`.
 */
export type EnvBytes = string | { base64: string };

// core/src/plan/kill.rs

/**
 * What a killed container is to the kubelet's termination order
 * (`pkg/kubelet/kuberuntime/kuberuntime_termination_order.go`).
 */
export type KillKind =
  /** `spec.containers`: stopped first, in parallel. */
  | "regular"
  /**
   * A restartable init container (`restartPolicy: Always`): stopped after every
   * regular container and after the next running sidecar in spec order.
   */
  | "sidecar"
  /** A classic init container still running: stopped at once, like a regular one. */
  | "init"
  /** `spec.ephemeralContainers`: stopped at once. */
  | "ephemeral";

/**
 * One `killContainer` of a `KillPod` step, in the kubelet's termination order.
 *
 * The executor runs every kill at once (the kubelet starts one goroutine per
 * container): the `preStop` hook first (at most `gracePeriodSeconds`), then it waits
 * until every container of `waitFor` has stopped (at most what is left of the grace
 * period; no wait when nothing is left), then `StopContainer` with
 * `max(2, gracePeriodSeconds − whole seconds of the hook − whole seconds waited)`.
 */
export interface ContainerKill {
  /** The container's name. */
  container: string;
  /** Its runtime id (`type://id`). */
  containerId: string;
  /** What it is to the termination order. */
  kind: KillKind;
  /**
   * The grace period `killContainer` starts with: the override (a terminating pod's
   * effective grace period), else `setTerminationGracePeriod` (deletion grace period,
   * spec, a failing probe's own value), before the 2 s floor. It bounds the preStop
   * hook and the wait.
   */
  gracePeriodSeconds: number;
  /**
   * What `StopContainer` gets when no time is spent in a hook or waiting:
   * `max(2, gracePeriodSeconds)`.
   */
  stopGracePeriodSeconds: number;
  /** The `preStop` hook that runs first (absent: none, or no grace period left). */
  preStop?: HookStep;
  /**
   * The stage: 0 = stops at once (regular, classic init, ephemeral containers); a
   * sidecar's is one more than the largest of the containers it waits for.
   */
  order: number;
  /**
   * The running containers whose stop this one waits for (a sidecar: every running
   * regular container and the next running sidecar in spec order).
   */
  waitFor?: string[];
}

/** What a `CleanupPod` step removes from the node. */
export interface CleanupPath {
  /**
   * What it is: `podCgroup` (the pod's cgroup, `PodContainerManager.Destroy`),
   * `podLogs` (`/var/log/pods/<ns>_<name>_<uid>`), `podDir` (`<root>/pods/<uid>`).
   */
  purpose: string;
  /** The path (`podCgroup`: the cgroup's name as the cgroup driver spells it). */
  path: string;
  /**
   * Who removes it in the kubelet (`SyncTerminatedPod`, `containerGC`,
   * `HandlePodCleanups`).
   */
  by: string;
}

// core/src/cri/update.rs

/** `UpdateContainerResourcesRequest` (proto3 JSON; `windows` is never set on Linux). */
export interface UpdateContainerResourcesRequest {
  /** Runtime container id (without the `runtime://` prefix). */
  containerId: string;
  /** The resources to apply. */
  linux: LinuxContainerResources;
}

/** `UpdatePodSandboxResourcesRequest` (proto3 JSON). */
export interface UpdatePodSandboxResourcesRequest {
  /** Sandbox id (empty when it is the sandbox this sync creates). */
  podSandboxId?: string;
  /** The pod overhead (`convertOverheadToLinuxResources`). */
  overhead: LinuxContainerResources;
  /** The pod's resources without the overhead. */
  resources: LinuxContainerResources;
}

/** The exact CRI request of a step that carries one. */
export type StepRequest =
  /** `UpdateContainerResources`. */
  | UpdateContainerResourcesRequest
  /** `UpdatePodSandboxResources`. */
  | UpdatePodSandboxResourcesRequest;

// core/src/plan/files.rs

/** Whether a `NodeFile` is a directory or a regular file. */
export type NodeFileKind =
  /** `MkdirAll(path, mode)`: created with its parents if missing, kept if present. */
  | "directory"
  /** Written (created or truncated) with `content`, then `chmod`ed to `mode`. */
  | "file";

/**
 * The node's file whose bytes go into a `NodeFile` between its `content` and `suffix`
 * (the host-network hosts file, when the node context does not give `etcHosts`).
 */
export interface NodeFileInclude {
  /** The node file to copy (`/etc/hosts`). */
  path: string;
  /** Text written after the copied bytes. */
  suffix?: string;
}

/** A directory or file the kubelet creates on the node. */
export interface NodeFile {
  /**
   * What it is for: `podLogs`, `podDir`, `etcHosts`, `terminationLogDir`,
   * `containerLogs`, `terminationLog`.
   */
  purpose: string;
  /** Absolute host path. */
  path: string;
  /** Directory or file. */
  kind: NodeFileKind;
  /** Permission bits, octal (`0644`). */
  mode: string;
  /** A file's content (the whole file, or what precedes `include`). */
  content?: string;
  /** A node file whose bytes follow `content`. */
  include?: NodeFileInclude;
}
