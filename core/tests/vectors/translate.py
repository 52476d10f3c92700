#!/usr/bin/env python3
"""Development aid, not part of the build. Translate kubelet computePodActions test tables (kuberuntime_manager_test.go @1eee9ca4)
into podplan action vectors. Produces every case of every table; `check` compares the
cases that are vendored with the vendored copies, `write` writes held-out ones."""
import copy, json, os, sys, glob
def container_hash(name, image):
    js = json.dumps({"image": image, "name": name}, separators=(',', ':'), sort_keys=True).encode()
    text = "([]uint8)[" + " ".join(str(b) for b in js) + "]"
    h = 0x811c9dc5
    for b in text.encode():
        h ^= b
        h = (h * 0x01000193) & 0xffffffff
    return h

H = container_hash

MI = 1024 * 1024

def container(name, image, **kw):
    c = {"name": name, "image": image}
    c.update(kw)
    return c

PROBE = {"exec": {"command": ["true"]}}

def sandbox(state="SANDBOX_READY", attempt=0, ip="10.0.0.1"):
    return {"id": "sandboxID", "metadata": {"name": "foo", "uid": "sandboxuid", "namespace": "foo-ns", "attempt": attempt},
            "state": state, "network": {"ip": ip}}

def st(cid, name, state, hash_=0, exit_code=0, **kw):
    s = {"id": "://" + cid, "name": name, "state": state}
    if hash_:
        s["hash"] = hash_
    s["exitCode"] = exit_code
    s.update(kw)
    return s

class Case:
    """A mutable (pod, status, probes, gates, actuated, expected) bundle."""
    def __init__(self, pod_spec, statuses, policy_set=False):
        self.spec = pod_spec
        self.statuses = statuses
        self.sandboxes = [sandbox()]
        self.probes = {}
        self.gates = {}
        self.actuated = None
        self.pod_status = None
        self.restart_all = None
        self.notes = []

    def set_policy(self, p):
        self.spec["restartPolicy"] = p

    def request(self):
        spec = copy.deepcopy(self.spec)
        notes = list(self.notes)
        if "restartPolicy" not in spec:
            spec["restartPolicy"] = "Always"
            notes.insert(0, "The Go test leaves pod restartPolicy empty; the kubelet treats \"\" like Always, so the vector says Always (the API default).")
        # restartPolicy last, as in the vendored vectors
        rp = spec.pop("restartPolicy")
        spec["restartPolicy"] = rp
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo", "namespace": "foo-ns", "uid": "12345678"}, "spec": spec}
        if self.pod_status is not None:
            pod["status"] = self.pod_status
        statuses = []
        for s in self.statuses:
            s = dict(s)
            if s["state"] != "exited" and s.get("exitCode", 0) == 0:
                s.pop("exitCode", None)
            statuses.append(s)
        req = {"pod": pod,
               "runtimeStatus": {"id": "12345678", "name": "foo", "namespace": "foo-ns",
                                 "sandboxStatuses": self.sandboxes, "containerStatuses": statuses},
               "probes": self.probes, "featureGates": self.gates}
        if self.actuated is not None:
            req["actuatedResources"] = self.actuated
        if self.restart_all is not None:
            req["restartAllContainers"] = self.restart_all
        return req, notes

def actions(kill_pod=False, create=False, sandbox_id="sandboxID", attempt=0, init=None, start=None, kill=None,
            eph=None, update=None, upr=False, uplr=None, reset=None):
    a = {"killPod": kill_pod, "createSandbox": create, "sandboxId": sandbox_id, "attempt": attempt,
         "nextInitContainerToStart": None, "initContainersToStart": init or [], "containersToStart": start or [],
         "containersToKill": kill or {}, "ephemeralContainersToStart": eph or [], "containersToUpdate": update or {},
         "updatePodResources": upr}
    if uplr is not None:
        a["updatePodLevelResources"] = uplr
    if reset is not None:
        a["containersToReset"] = reset
    return a

def kill_of(case_statuses, spec_list, idxs):
    """getKillMap / getKillMapWithInitContainers: status.ContainerStatuses[i].ID -> spec[i].Name"""
    return {case_statuses[i]["id"]: {"name": spec_list[i]["name"]} for i in idxs}

# ---------------------------------------------------------------- bases

def base():
    spec = {"containers": [container("foo1", "busybox"), container("foo2", "busybox"), container("foo3", "busybox")]}
    sts = [st("id%d" % i, "foo%d" % i, "running", H("foo%d" % i, "busybox")) for i in (1, 2, 3)]
    return Case(spec, sts)

def base_init():
    c = base()
    c.spec["initContainers"] = [
        container("init1", "bar-image", resources={"requests": {"cpu": "400m", "memory": "400Mi"}}),
        container("init2", "bar-image"), container("init3", "bar-image")]
    c.statuses = [st("initid%d" % i, "init%d" % i, "exited", H("init%d" % i, "bar-image")) for i in (1, 2, 3)]
    return c

def base_restartable():
    c = base()
    c.spec["initContainers"] = [
        container("restartable-init-1", "bar-image", restartPolicy="Always"),
        container("restartable-init-2", "bar-image", restartPolicy="Always", livenessProbe=PROBE, startupProbe=PROBE),
        container("restartable-init-3", "bar-image", restartPolicy="Always", livenessProbe=PROBE, startupProbe=PROBE)]
    c.statuses = [st("initid%d" % i, "restartable-init-%d" % i, "running", H("restartable-init-%d" % i, "bar-image")) for i in (1, 2, 3)]
    return c

def base_init_eph():
    c = base()
    c.spec["initContainers"] = [container("init1", "bar-image")]
    c.spec["ephemeralContainers"] = [container("debug", "busybox")]
    c.statuses = c.statuses + [st("initid1", "init1", "exited", H("init1", "bar-image")),
                               st("debug1", "debug", "running", H("debug", "busybox"))]
    return c

def initialize_actuated(c):
    """m.InitializeActuatedPod(pod): a record for every init and regular container."""
    cs = {}
    for k in ("initContainers", "containers"):
        for ct in c.spec.get(k, []):
            cs[ct["name"]] = copy.deepcopy(ct.get("resources", {}))
    out = {"containers": cs}
    if "resources" in c.spec:
        out["pod"] = copy.deepcopy(c.spec["resources"])
    return out

# ---------------------------------------------------------------- TestComputePodActions

def t_cpa():
    T = []
    def add(n, slug, desc, mut, exp):
        c = base(); mut(c); T.append((n, slug, desc, c, exp(c)))
    b = base()
    add(1, "cpa-everything-good-do-nothing", "everything is good; do nothing", lambda c: None, lambda c: actions())
    def m2(c): c.sandboxes = []; c.statuses = []
    add(2, "cpa-new-pod-start-sandbox-and-all", "start pod sandbox and all containers for a new pod", m2,
        lambda c: actions(kill_pod=True, create=True, sandbox_id="", start=[0, 1, 2]))
    def m3(c):
        c.set_policy("Always"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="exited", exitCode=111)
    add(3, "cpa-restart-exited-always", "restart exited containers if RestartPolicy == Always", m3, lambda c: actions(start=[0, 1]))
    def m4(c):
        c.set_policy("OnFailure"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="exited", exitCode=111)
    add(4, "cpa-restart-failed-onfailure", "restart failed containers if RestartPolicy == OnFailure", m4, lambda c: actions(start=[1]))
    def m5(c):
        c.set_policy("OnFailure"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="created")
    add(5, "cpa-restart-created-onfailure", "restart created but not started containers if RestartPolicy == OnFailure", m5, lambda c: actions(start=[1]))
    def m6(c):
        c.set_policy("Never"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="exited", exitCode=111)
    add(6, "cpa-dont-restart-never", "don't restart containers if RestartPolicy == Never", m6, lambda c: actions())
    def m7(c): c.set_policy("Always"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"
    add(7, "cpa-sandbox-dead-always-recreate-all", "Kill pod and recreate everything if the pod sandbox is dead, and RestartPolicy == Always", m7,
        lambda c: actions(kill_pod=True, create=True, attempt=1, start=[0, 1, 2]))
    def m8(c):
        c.set_policy("OnFailure"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses[1].update(state="exited", exitCode=0)
    add(8, "cpa-sandbox-dead-onfailure-skip-succeeded", "Kill pod and recreate all containers (except for the succeeded one) if the pod sandbox is dead, and RestartPolicy == OnFailure", m8,
        lambda c: actions(kill_pod=True, create=True, attempt=1, start=[0, 2]))
    def m9(c): c.sandboxes[0]["network"]["ip"] = ""
    add(9, "cpa-sandbox-no-ip-recreate-all", "Kill pod and recreate all containers if the PodSandbox does not have an IP", m9,
        lambda c: actions(kill_pod=True, create=True, attempt=1, start=[0, 1, 2]))
    def m10(c): c.set_policy("Always"); c.statuses[1]["hash"] = 432423432
    add(10, "cpa-spec-changed-kill-and-recreate", "Kill and recreate the container if the container's spec changed", m10,
        lambda c: actions(kill=kill_of(b.statuses, b.spec["containers"], [1]), start=[1]))
    def m11(c): c.set_policy("Always"); c.probes = {"://id2": {"liveness": "failure"}}
    add(11, "cpa-liveness-failed-kill-and-recreate", "Kill and recreate the container if the liveness check has failed", m11,
        lambda c: actions(kill=kill_of(b.statuses, b.spec["containers"], [1]), start=[1]))
    def m12(c): c.set_policy("Always"); c.probes = {"://id2": {"startup": "failure"}}
    add(12, "cpa-startup-failed-kill-and-recreate", "Kill and recreate the container if the startup check has failed", m12,
        lambda c: actions(kill=kill_of(b.statuses, b.spec["containers"], [1]), start=[1]))
    def m13(c):
        c.set_policy("Never"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.sandboxes[0]["metadata"]["attempt"] = 1
        for s in c.statuses: s.update(state="exited", exitCode=0)
    add(13, "cpa-no-sandbox-never-all-exited", "Verify we do not create a pod sandbox if no ready sandbox for pod with RestartPolicy=Never and all containers exited", m13,
        lambda c: actions(kill_pod=True, attempt=2))
    def m14(c):
        c.set_policy("OnFailure"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.sandboxes[0]["metadata"]["attempt"] = 1
        for s in c.statuses: s.update(state="exited", exitCode=0)
    add(14, "cpa-no-sandbox-onfailure-all-succeeded", "Verify we do not create a pod sandbox if no ready sandbox for pod with RestartPolicy=OnFailure and all containers succeeded", m14,
        lambda c: actions(kill_pod=True, attempt=2))
    def m15(c):
        c.set_policy("Never"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.sandboxes[0]["metadata"]["attempt"] = 2; c.statuses = []
    add(15, "cpa-no-sandbox-never-no-containers-create", "Verify we create a pod sandbox if no ready sandbox for pod with RestartPolicy=Never and no containers have ever been created", m15,
        lambda c: actions(kill_pod=True, create=True, attempt=3, start=[0, 1, 2]))
    def m16(c): c.set_policy("Never"); c.statuses[1]["state"] = "unknown"
    add(16, "cpa-unknown-state-kill-and-recreate", "Kill and recreate the container if the container is in unknown state", m16,
        lambda c: actions(kill=kill_of(b.statuses, b.spec["containers"], [1]), start=[1]))
    def m17(c): c.set_policy("Never"); c.statuses[1]["state"] = "created"
    add(17, "cpa-created-state-restart", "Restart the container if the container is in created state", m17, lambda c: actions(start=[1]))
    return T

# ---------------------------------------------------------------- TestComputePodActionsWithInitContainers

def t_init():
    T = []
    b = base_init()
    bi = lambda idxs: kill_of(b.statuses, b.spec["initContainers"], idxs)
    def add(n, slug, desc, mut, exp, gates=None, notes=()):
        c = base_init()
        c.actuated = initialize_actuated(c)  # before mutatePodFn, as the test does
        mut(c)
        if gates: c.gates.update(gates)
        c.notes.extend(notes)
        T.append((n, slug, desc, c, exp(c)))
    add(1, "init-completed-start-all", "initialization completed; start all containers", lambda c: None, lambda c: actions(start=[0, 1, 2]))
    def m2(c): c.statuses = []
    add(2, "init-none-started-start-first", "no init containers have been started; start the first one", m2, lambda c: actions(init=[0]))
    def m3(c): c.set_policy("Always"); c.statuses[2]["state"] = "running"
    add(3, "init-in-progress-do-nothing", "initialization in progress; do nothing", m3, lambda c: actions())
    def m4(c): c.set_policy("Always"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"
    add(4, "init-sandbox-dead-restart-first-init", "Kill pod and restart the first init container if the pod sandbox is dead", m4,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]))
    def m5(c): c.set_policy("Always"); c.statuses[2]["exitCode"] = 137
    add(5, "init-failed-restart-last-always", "initialization failed; restart the last init container if RestartPolicy == Always", m5, lambda c: actions(init=[2]))
    def m6(c): c.set_policy("OnFailure"); c.statuses[2]["exitCode"] = 137
    add(6, "init-failed-restart-last-onfailure", "initialization failed; restart the last init container if RestartPolicy == OnFailure", m6, lambda c: actions(init=[2]))
    def m7(c): c.set_policy("Never"); c.statuses[2]["exitCode"] = 137
    add(7, "init-failed-kill-pod-never", "initialization failed; kill pod if RestartPolicy == Never", m7, lambda c: actions(kill_pod=True))
    def m8(c): c.set_policy("Always"); c.statuses[2]["state"] = "unknown"
    add(8, "init-unknown-kill-recreate-last-always", "init container state unknown; kill and recreate the last init container if RestartPolicy == Always", m8,
        lambda c: actions(init=[2], kill=bi([2])))
    def m9(c): c.set_policy("OnFailure"); c.statuses[2]["state"] = "unknown"
    add(9, "init-unknown-kill-recreate-last-onfailure", "init container state unknown; kill and recreate the last init container if RestartPolicy == OnFailure", m9,
        lambda c: actions(init=[2], kill=bi([2])))
    def m10(c): c.set_policy("Never"); c.statuses[2]["state"] = "unknown"
    add(10, "init-unknown-kill-pod-never", "init container state unknown; kill pod if RestartPolicy == Never", m10, lambda c: actions(kill_pod=True))
    def m11(c): c.set_policy("Never"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"
    add(11, "init-sandbox-not-ready-never-kill-only", "Pod sandbox not ready, init container failed, but RestartPolicy == Never; kill pod only", m11,
        lambda c: actions(kill_pod=True, attempt=1))
    def m12(c): c.set_policy("Never"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses = []
    add(12, "init-sandbox-not-ready-never-no-visible-init", "Pod sandbox not ready, and RestartPolicy == Never, but no visible init containers;  create a new pod sandbox", m12,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]))
    def m13(c): c.set_policy("OnFailure"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses[2]["exitCode"] = 137
    add(13, "init-sandbox-not-ready-onfailure-new-sandbox", "Pod sandbox not ready, init container failed, and RestartPolicy == OnFailure; create a new pod sandbox", m13,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]))
    def m14(c): c.set_policy("Always"); c.statuses[2]["state"] = "running"; c.statuses = c.statuses[2:]
    add(14, "init-missing-statuses-last-running", "some of the init container statuses are missing but the last init container is running, don't restart preceding ones", m14, lambda c: actions())
    def m15(c): c.statuses = [{"id": "://id1", "name": "foo1", "state": "created", "podSandboxId": "previousSandboxID"}]
    add(15, "init-stale-main-container-not-initialized", "stale main container from a previous sandbox must not mark pod as initialized", m15, lambda c: actions(init=[0]),
        notes=["The Go test empties ActiveContainerStatuses while foo1 stays in ContainerStatuses: expressed with podSandboxId of an older sandbox."])
    def m16(c): c.set_policy("Always"); c.statuses[2]["state"] = "created"
    add(16, "init-created-state-restart", "an init container is in the created state due to an unknown error when starting container; restart it", m16, lambda c: actions(init=[2]))
    def m17(c):
        c.spec["initContainers"][0]["resources"] = {"requests": {"cpu": "200m", "memory": "200Mi"}}; c.statuses = []
    add(17, "init-resize-not-yet-running-init-start", "resize request exists on a not yet running non-sidecar init container; start it", m17,
        lambda c: actions(init=[0], upr=True), gates={"InPlacePodVerticalScaling": True})
    upd = lambda: {"memory": [{"name": "init1", "containerId": "://initid1",
                               "desired": {"memoryLimit": 0, "memoryRequest": 800 * MI, "cpuLimit": 0, "cpuRequest": 800},
                               "current": {"memoryLimit": 0, "memoryRequest": 400 * MI, "cpuLimit": 0, "cpuRequest": 400}}],
                   "cpu": [{"name": "init1", "containerId": "://initid1",
                            "desired": {"memoryLimit": 0, "memoryRequest": 800 * MI, "cpuLimit": 0, "cpuRequest": 800},
                            "current": {"memoryLimit": 0, "memoryRequest": 400 * MI, "cpuLimit": 0, "cpuRequest": 400}}]}
    def m18(c):
        c.spec["initContainers"][0]["resources"] = {"requests": {"cpu": "800m", "memory": "800Mi"}}
        c.statuses = c.statuses[:1]; c.statuses[0]["state"] = "running"
    add(18, "init-resize-running-init", "resize of a running non-sidecar init container", m18, lambda c: actions(update=upd()),
        gates={"InPlacePodVerticalScaling": True},
        notes=["InPlacePodVerticalScaling (GA, default on) made explicit. Skipped on Windows in Go."])
    add(19, "init-resize-running-init-gate-disabled", "resize of a running non-sidecar init container with FG disabled", m18, lambda c: actions(),
        gates={"InPlacePodVerticalScaling": True, "InPlacePodVerticalScalingInitContainers": False})
    # Sort the gates as the vendored copies for readability (insignificant).
    return T

# ---------------------------------------------------------------- TestComputePodActionsWithRestartableInitContainers

def t_restartable():
    T = []
    b = base_restartable()
    bi = lambda idxs: kill_of(b.statuses, b.spec["initContainers"], idxs)
    def add(n, slug, desc, mut, exp, notes=()):
        c = base_restartable()
        c.probes = {"://initid2": {"liveness": "success", "startup": "success"},
                    "://initid3": {"liveness": "success", "startup": "success"}}
        mut(c)
        c.notes.extend(notes)
        T.append((n, slug, desc, c, exp(c)))
    def rm(c, cid, kind):
        c.probes.get(cid, {}).pop(kind, None)
    add(1, "sidecar-completed-start-all", "initialization completed; start all containers", lambda c: None, lambda c: actions(start=[0, 1, 2]))
    def m2(c): c.statuses = []
    add(2, "sidecar-none-started-start-first", "no init containers have been started; start the first one", m2, lambda c: actions(init=[0]))
    def m3(c): c.set_policy("Always"); c.statuses[2]["state"] = "created"
    add(3, "sidecar-stuck-created-restart", "an init container is stuck in the created state; restart it", m3, lambda c: actions(init=[2]))
    def m4(c): c.set_policy("Always"); c.statuses = c.statuses[:1]
    add(4, "sidecar-started-start-next", "restartable init container has started; start the next", m4, lambda c: actions(init=[1]))
    def m5(c): c.set_policy("Always"); rm(c, "://initid2", "liveness"); c.statuses = c.statuses[:2]
    add(5, "sidecar-liveness-not-run", "livenessProbe has not been run; start the nothing", m5, lambda c: actions(init=[2]))
    def m6(c): c.set_policy("Always"); c.probes["://initid2"]["liveness"] = "unknown"; c.statuses = c.statuses[:2]
    add(6, "sidecar-liveness-in-progress", "livenessProbe in progress; start the next", m6, lambda c: actions(init=[2]))
    def m7(c): c.set_policy("Always"); c.statuses = c.statuses[:2]
    add(7, "sidecar-liveness-completed", "livenessProbe has completed; start the next", m7, lambda c: actions(init=[2]))
    def m8(c): c.set_policy("Always"); c.probes["://initid3"]["liveness"] = "failure"
    add(8, "sidecar-liveness-failed-kill-recreate", "kill and recreate the restartable init container if the liveness check has failed", m8,
        lambda c: actions(init=[2], kill=bi([2]), start=[0, 1, 2]))
    def m9(c): c.set_policy("Always"); rm(c, "://initid2", "startup"); c.statuses = c.statuses[:2]
    add(9, "sidecar-startup-not-run", "startupProbe has not been run; do nothing", m9, lambda c: actions())
    def m10(c): c.set_policy("Always"); c.probes["://initid2"]["startup"] = "unknown"; c.statuses = c.statuses[:2]
    add(10, "sidecar-startup-in-progress", "startupProbe in progress; do nothing", m10, lambda c: actions())
    def m11(c): c.set_policy("Always"); c.statuses = c.statuses[:2]
    add(11, "sidecar-startup-completed", "startupProbe has completed; start the next", m11, lambda c: actions(init=[2]))
    def m12(c):
        c.set_policy("Always"); c.spec["initContainers"][2]["startupProbe"] = PROBE; c.probes["://initid3"]["startup"] = "failure"
    add(12, "sidecar-startup-failed-kill-recreate", "kill and recreate the restartable init container if the startup check has failed", m12,
        lambda c: actions(init=[2], kill=bi([2])))
    def m13(c): c.set_policy("Always"); c.spec["initContainers"][2]["image"] = "foo-image"
    add(13, "sidecar-definition-changed-kill-recreate", "kill and recreate the restartable init container if the container definition changes", m13,
        lambda c: actions(init=[2], kill=bi([2]), start=[0, 1, 2]))
    def m14(c): c.set_policy("Always"); c.statuses[0]["state"] = "exited"; c.statuses[2]["state"] = "exited"
    add(14, "sidecar-restart-terminated-and-next", "restart terminated restartable init container and next init container", m14, lambda c: actions(init=[0, 2]))
    def m15(c): c.set_policy("Always"); c.statuses[0]["state"] = "exited"
    add(15, "sidecar-restart-terminated-and-regular", "restart terminated restartable init container and regular containers", m15, lambda c: actions(init=[0], start=[0, 1, 2]))
    def m16(c):
        c.set_policy("Never"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses[2].update(state="exited", exitCode=137)
    add(16, "sidecar-sandbox-not-ready-never-kill-only", "Pod sandbox not ready, restartable init container failed, but RestartPolicy == Never; kill pod only", m16,
        lambda c: actions(kill_pod=True, attempt=1))
    def m17(c): c.set_policy("Never"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses = []
    add(17, "sidecar-sandbox-not-ready-never-no-visible", "Pod sandbox not ready, and RestartPolicy == Never, but no visible restartable init containers;  create a new pod sandbox", m17,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]))
    def m18(c):
        c.set_policy("OnFailure"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses[2].update(state="exited", exitCode=137)
    add(18, "sidecar-sandbox-not-ready-onfailure-new-sandbox", "Pod sandbox not ready, restartable init container failed, and RestartPolicy == OnFailure; create a new pod sandbox", m18,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]))
    def m19(c):
        c.set_policy("Always"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses[2].update(state="exited", exitCode=137)
    add(19, "sidecar-sandbox-not-ready-always-new-sandbox", "Pod sandbox not ready, restartable init container failed, and RestartPolicy == Always; create a new pod sandbox", m19,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]))
    def m20(c): c.set_policy("Never"); c.statuses[2].update(state="exited", exitCode=137)
    add(20, "sidecar-failed-restart-last-even-never", "initialization failed; restart the last restartable init container even if pod's RestartPolicy == Never", m20,
        lambda c: actions(init=[2]))
    def m21(c): c.set_policy("Never"); c.statuses[2]["state"] = "unknown"
    add(21, "sidecar-unknown-kill-recreate-even-never", "restartable init container state unknown; kill and recreate the last restartable init container even if pod's RestartPolicy == Never", m21,
        lambda c: actions(init=[2], kill=bi([2])))
    def m22(c):
        c.set_policy("Never"); c.statuses[2].update(state="exited", exitCode=137)
        for i in (1, 2, 3):
            c.statuses.append(st("id%d" % i, "foo%d" % i, "running", H("foo%d" % i, "busybox")))
    add(22, "sidecar-restart-even-never-regular-running", "restart restartable init container if regular containers are running even if pod's RestartPolicy == Never", m22,
        lambda c: actions(init=[2]),
        notes=["The Go test appends the regular statuses after ActiveContainerStatuses was aliased to the init statuses, so its active list holds only the init containers; here the regular statuses are active too. The kubelet decision is the same either way (the last sidecar is running with startup Success, so the pod counts as initialised; the running regular containers are kept)."])
    def m23(c):
        c.set_policy("Never")
        for i in (1, 2, 3):
            c.statuses.append(st("id%d" % i, "foo%d" % i, "exited", H("foo%d" % i, "busybox"), 0))
    add(23, "sidecar-all-regular-succeeded-kill-pod-never", "kill the pod if all main containers succeeded if pod's RestartPolicy == Never", m23,
        lambda c: actions(kill_pod=True),
        notes=["The Go test appends the regular statuses after ActiveContainerStatuses was aliased to the init statuses, so its active list holds only the init containers; here the regular statuses are active too. The kubelet decision is the same either way (initialised through the last sidecar's startup Success, or through the active regular statuses)."])
    def m24(c): c.set_policy("Always"); c.statuses = c.statuses[2:]
    add(24, "sidecar-missing-statuses-last-running-restart-rest", "some of the init container statuses are missing but the last init container is running, restart restartable init and regular containers", m24,
        lambda c: actions(init=[0, 1], start=[0, 1, 2]))
    def m25(c):
        ic = c.spec["initContainers"][1]
        ic.pop("restartPolicy"); ic.pop("livenessProbe"); ic.pop("startupProbe")
        c.statuses = [{"id": "://id1", "name": "foo1", "state": "created", "podSandboxId": "previousSandboxID"}]
    add(25, "sidecar-stale-main-container-mixed-init", "stale main container with mixed restartable and non-restartable init containers; start the first one", m25,
        lambda c: actions(init=[0]))
    return T

# ---------------------------------------------------------------- TestComputePodActionsWithInitAndEphemeralContainers

def t_eph():
    T = []
    def add(n, slug, desc, mut, exp, notes=()):
        c = base_init_eph(); mut(c); c.notes.extend(notes); T.append((n, slug, desc, c, exp(c)))
    add(1, "ephemeral-steady-state-ignore-ephemeral", "steady state; do nothing; ignore ephemeral container", lambda c: None, lambda c: actions())
    def m2(c): c.statuses = c.statuses[:4]
    add(2, "ephemeral-none-running-start-one", "No ephemeral containers running; start one", m2, lambda c: actions(eph=[0]),
        notes=["The Go test slices ContainerStatuses to drop the ephemeral status but leaves it in ActiveContainerStatuses; the kubelet never looks ephemeral containers up in the active list, so the decision is unaffected."])
    def m3(c): c.spec["ephemeralContainers"].append(container("debug2", "busybox"))
    add(3, "ephemeral-start-second", "Start second ephemeral container", m3, lambda c: actions(eph=[1]))
    def m4(c): c.set_policy("Always"); c.statuses[4]["state"] = "exited"
    add(4, "ephemeral-exited-do-not-restart", "Ephemeral container exited; do not restart", m4, lambda c: actions())
    def m5(c): c.statuses[3]["state"] = "running"; c.statuses = c.statuses[:4]
    add(5, "ephemeral-init-in-progress-start-ephemeral", "initialization in progress; start ephemeral container", m5, lambda c: actions(eph=[0]))
    def m6(c):
        c.set_policy("OnFailure"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses = c.statuses[3:]; c.statuses[0]["exitCode"] = 137
    add(6, "ephemeral-sandbox-dead-init-failed-onfailure", "Create a new pod sandbox if the pod sandbox is dead, init container failed and RestartPolicy == OnFailure", m6,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]))
    def m7(c): c.set_policy("Always"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"
    add(7, "ephemeral-sandbox-dead-kill-pod-no-ephemeral", "Kill pod and do not restart ephemeral container if the pod sandbox is dead", m7,
        lambda c: actions(kill_pod=True, create=True, attempt=1, init=[0]),
        notes=["The Go test keeps a non-empty ActiveContainerStatuses with a NOTREADY sandbox; the sandbox re-creation path returns before anything reads it."])
    def m8(c):
        c.set_policy("Never")
        for i in range(3): c.statuses[i].update(state="exited", exitCode=0)
    add(8, "ephemeral-kill-pod-all-exited-except-ephemeral", "Kill pod if all containers exited except ephemeral container", m8, lambda c: actions(kill_pod=True))
    def m9(c): c.set_policy("Never"); c.statuses[4]["state"] = "unknown"
    add(9, "ephemeral-unknown-leave-alone", "Ephemeral container is in unknown state; leave it alone", m9, lambda c: actions())
    return T

# ---------------------------------------------------------------- TestComputePodActionsWithContainerRestartRules

def t_rules():
    T = []
    b = base()
    def add(n, slug, desc, mut, exp):
        c = base(); c.gates = {"ContainerRestartRules": True}; mut(c); T.append((n, slug, desc, c, exp(c)))
    def m1(c):
        for i in (0, 1): c.spec["containers"][i]["restartPolicy"] = "Always"
        c.set_policy("Never"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="exited", exitCode=111)
    add(1, "rules-restart-exited-container-always", "restart exited containers if RestartPolicy == Always", m1, lambda c: actions(start=[0, 1]))
    def m2(c):
        for i in (0, 1): c.spec["containers"][i]["restartPolicy"] = "OnFailure"
        c.set_policy("Never"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="exited", exitCode=111)
    add(2, "rules-restart-failed-container-onfailure", "restart failed containers if RestartPolicy == OnFailure", m2, lambda c: actions(start=[1]))
    def m3(c):
        for i in (0, 1): c.spec["containers"][i]["restartPolicy"] = "OnFailure"
        c.set_policy("Never"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="created")
    add(3, "rules-restart-created-container-onfailure", "restart created but not started containers if RestartPolicy == OnFailure", m3, lambda c: actions(start=[1]))
    def m4(c):
        for i in (0, 1): c.spec["containers"][i]["restartPolicy"] = "Never"
        c.set_policy("Always"); c.statuses[0].update(state="exited", exitCode=0); c.statuses[1].update(state="exited", exitCode=111)
    add(4, "rules-dont-restart-container-never", "don't restart containers if RestartPolicy == Never", m4, lambda c: actions())
    def m5(c):
        c.spec["containers"][1]["restartPolicy"] = "OnFailure"
        c.set_policy("Always"); c.sandboxes[0]["state"] = "SANDBOX_NOTREADY"; c.statuses[1].update(state="exited", exitCode=0)
    add(5, "rules-sandbox-dead-skip-succeeded-container-onfailure", "Kill pod and recreate all containers (except for the succeeded one) if the pod sandbox is dead", m5,
        lambda c: actions(kill_pod=True, create=True, attempt=1, start=[0, 2]))
    return T

# ---------------------------------------------------------------- TestComputePodActionsForRestartAllContainers

RAC_GATES = {"ContainerRestartRules": True, "NodeDeclaredFeatures": True, "RestartAllContainersOnContainerExits": True}
RAC_RULES = [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}]
TRUE = [{"type": "AllContainersRestarting", "status": "True"}]
FALSE = [{"type": "AllContainersRestarting", "status": "False"}]

def t_rac():
    T = []
    def add(n, slug, desc, podf, statusf, restart_all, reset=None, start=None, init=None):
        c = podf()
        c.statuses = statusf()
        c.gates = dict(RAC_GATES)
        c.actuated = initialize_actuated(c)
        c.restart_all = restart_all
        exp = actions(start=start, init=init, reset=[{"name": n_, "containerId": "://" + i_, "kill": k_} for (n_, i_, k_) in (reset or [])])
        T.append((n, slug, desc, c, exp))
    def pod(basef, cond=None, mut=None):
        def f():
            c = basef()
            if cond is not None: c.pod_status = {"conditions": cond}
            if mut: mut(c)
            return c
        return f
    def status(basef, mut=None):
        def f():
            c = basef()
            if mut: mut(c)
            return c.statuses
        return f
    add(1, "rac-not-marked", "pod not marked for RestartAllContainers", pod(base, FALSE), status(base), False)
    add(2, "rac-marked", "pod marked for RestartAllContainers", pod(base, TRUE), status(base), True,
        reset=[("foo1", "id1", True), ("foo2", "id2", True), ("foo3", "id3", True)])
    add(3, "rac-marked-with-init-containers", "pod marked for RestartAllContainers with init containers", pod(base_init, TRUE), status(base_init), True,
        reset=[("init1", "initid1", False), ("init2", "initid2", False), ("init3", "initid3", False)])
    add(4, "rac-marked-with-restartable-init-containers", "pod marked for RestartAllContainers with restartable init containers", pod(base_restartable, TRUE), status(base_restartable), True,
        reset=[("restartable-init-1", "initid1", True), ("restartable-init-2", "initid2", True), ("restartable-init-3", "initid3", True)])
    def p5(c):
        c.spec["initContainers"][1]["restartPolicy"] = "Always"
        c.spec["initContainers"][2]["restartPolicy"] = "Never"
        c.spec["initContainers"][2]["restartPolicyRules"] = copy.deepcopy(RAC_RULES)
    def s5(c):
        c.statuses[1]["state"] = "running"; c.statuses[2]["exitCode"] = 1
    add(5, "rac-init-exit-triggers", "init container exit triggers RestartAllContainers", pod(base_init, TRUE, p5), status(base_init, s5), True,
        reset=[("init1", "initid1", False), ("init2", "initid2", True), ("init3", "initid3", False)])
    def p6(c):
        c.spec["initContainers"][2]["restartPolicy"] = "Always"
        c.spec["initContainers"][2]["restartPolicyRules"] = copy.deepcopy(RAC_RULES)
    def s6(c):
        c.statuses[2].update(exitCode=1, state="exited")
        c.statuses.append(st("id1", "foo1", "running", H("foo1", "busybox")))
    add(6, "rac-sidecar-exit-triggers", "sidecar container exit triggers RestartAllContainres", pod(base_restartable, TRUE, p6), status(base_restartable, s6), True,
        reset=[("foo1", "id1", True), ("restartable-init-1", "initid1", True), ("restartable-init-2", "initid2", True), ("restartable-init-3", "initid3", False)])
    def p7(c):
        c.spec["containers"][2]["restartPolicy"] = "Never"
        c.spec["containers"][2]["restartPolicyRules"] = copy.deepcopy(RAC_RULES)
    def s7(c):
        c.statuses.append(st("id1", "foo1", "running"))
        c.statuses.append(st("id2", "foo2", "running"))
        c.statuses.append(st("id3", "foo3", "exited", 0, 1))
    add(7, "rac-regular-container-exit-triggers", "regular container exit triggers RestartAllContainers", pod(base_restartable, TRUE, p7), status(base_restartable, s7), True,
        reset=[("foo1", "id1", True), ("foo2", "id2", True), ("restartable-init-1", "initid1", True), ("restartable-init-2", "initid2", True),
               ("restartable-init-3", "initid3", True), ("foo3", "id3", False)])
    def p8(c):
        c.set_policy("Always")
        c.spec["containers"][2]["restartPolicy"] = "Always"
        c.spec["containers"][2]["restartPolicyRules"] = copy.deepcopy(RAC_RULES)
    t1, t0 = "2025-01-01T00:01:00Z", "2025-01-01T00:00:00Z"
    def s8(c):
        c.statuses[0]["createdAt"] = t1; c.statuses[1]["createdAt"] = t1
        c.statuses[2] = st("id3", "foo3", "exited", 0, 1, createdAt=t1)
        c.statuses.append(st("id1-past", "foo1", "exited", 0, 99, createdAt=t0))
        c.statuses.append(st("id2-past", "foo2", "exited", 0, 99, createdAt=t0))
        c.statuses.append(st("id3-past", "foo3", "exited", 0, 99, createdAt=t0))
    add(8, "rac-removes-past-terminated-statuses", "removes past terminated statuses", pod(base, TRUE, p8), status(base, s8), True,
        reset=[("foo1", "id1", True), ("foo1", "id1-past", False), ("foo2", "id2", True), ("foo2", "id2-past", False),
               ("foo3", "id3-past", False), ("foo3", "id3", False)])
    def s9(c): c.statuses = []
    add(9, "rac-all-removed-start-init", "all containers removed, start init container", pod(base_init), status(base, s9), False, init=[0])
    add(10, "rac-all-removed-start-regular", "all containers removed, start regular container", pod(base), status(base, s9), False, start=[0, 1, 2])
    return T

# ---------------------------------------------------------------- TestComputePodActionsForPodResize

NR = lambda r: {"resourceName": r, "restartPolicy": "NotRequired"}
RC = lambda r: {"resourceName": r, "restartPolicy": "RestartContainer"}

def t_resize():
    T = []
    def lim(cpu=None, mem=None):
        d = {}
        if cpu: d["cpu"] = cpu
        if mem: d["memory"] = mem
        return d
    def add(n, slug, desc, setup, exp, pod_level):
        c = base()
        for ct in c.spec["containers"]:
            ct["resizePolicy"] = [NR("cpu"), NR("memory")]
        c.actuated = {"containers": {}}
        setup(c)
        if not c.actuated["containers"] and "pod" not in c.actuated:
            pass
        c.gates = {"InPlacePodVerticalScaling": True, "NodeDeclaredFeatures": True, "InPlacePodLevelResourcesVerticalScaling": pod_level}
        e = exp(c)
        e["updatePodLevelResources"] = e.get("updatePodLevelResources", False)
        T.append((n, slug, desc, c, e))
    def setc(c, i, res):
        c.spec["containers"][i]["resources"] = copy.deepcopy(res)
    def act(c, name, res):
        c.actuated["containers"][name] = copy.deepcopy(res)
    def item(name, cid, d, cur):
        z = lambda x: {"memoryLimit": x.get("ml", 0), "memoryRequest": x.get("mr", 0), "cpuLimit": x.get("cl", 0), "cpuRequest": x.get("cr", 0)}
        return {"name": name, "containerId": "://" + cid, "desired": z(d), "current": z(cur)}
    L = lambda cpu, mem: {"limits": lim(cpu, mem)}
    def s1(c):
        setc(c, 1, L("100m", "100Mi")); act(c, "foo2", L("100m", "100Mi")); c.actuated["pod"] = L("200m", "200Mi")
    add(1, "resize-pod-level-gate-disabled", "Update pod-level CPU and memory resources pod resize disabled", s1, lambda c: actions(), False)
    def s2(c):
        for i in range(3):
            setc(c, i, L("100m", "100Mi")); act(c, "foo%d" % (i + 1), L("100m", "100Mi"))
        c.spec["resources"] = L("200m", "200Mi"); c.actuated["pod"] = L("100m", "100Mi")
    add(2, "resize-pod-level-cpu-memory", "Update pod-level CPU and memory resources", s2, lambda c: actions(uplr=True), True)
    def s3(c):
        setc(c, 1, L("100m", "100Mi")); act(c, "foo2", L("200m", "200Mi")); c.actuated["pod"] = L("200m", "200Mi")
    it3 = lambda: item("foo2", "id2", {"ml": 100 * MI, "cl": 100}, {"ml": 200 * MI, "cl": 200})
    add(3, "resize-pod-level-and-container-gate-disabled", "Update pod-level and container CPU and memory resources pod resize disabled", s3,
        lambda c: actions(update={"memory": [it3()], "cpu": [it3()]}), False)
    def s4(c):
        setc(c, 0, L("100m", "100Mi")); setc(c, 1, L("200m", "200Mi")); setc(c, 2, L("100m", "100Mi"))
        for i in range(3): act(c, "foo%d" % (i + 1), L("100m", "100Mi"))
        c.spec["resources"] = L("600m", "600Mi"); c.actuated["pod"] = L("300m", "300Mi")
    it4 = lambda: item("foo2", "id2", {"ml": 200 * MI, "cl": 200}, {"ml": 100 * MI, "cl": 100})
    add(4, "resize-pod-level-and-container", "Update pod-level resources and container CPU and memory resources", s4,
        lambda c: actions(update={"memory": [it4()], "cpu": [it4()]}, uplr=True), True)
    def s5(c):
        setc(c, 0, L("100m", "100Mi")); act(c, "foo1", L("100m", "100Mi"))
        setc(c, 2, L("100m", "100Mi")); act(c, "foo3", L("100m", "100Mi"))
        c.spec["resources"] = L("600m", "600Mi"); c.actuated["pod"] = L("300m", "300Mi")
    it5 = lambda: item("foo2", "id2", {"ml": 600 * MI, "cl": 600}, {"ml": 300 * MI, "cl": 300})
    add(5, "resize-pod-level-limits-container-default", "Update pod-level limits and container updated by default", s5,
        lambda c: actions(update={"memory": [it5()], "cpu": [it5()]}, uplr=True), True)
    def s6(c):
        setc(c, 0, L("100m", "100Mi")); act(c, "foo1", L("100m", "100Mi"))
        act(c, "foo2", {}); c.spec["containers"][1]["resizePolicy"] = [RC("cpu"), NR("memory")]
        setc(c, 2, L("100m", "100Mi")); act(c, "foo3", L("100m", "100Mi"))
        c.spec["resources"] = L("600m", "600Mi"); c.actuated["pod"] = L("300m", "300Mi")
    add(6, "resize-pod-level-limits-container-restart", "Update pod-level limits and container to kill updated by default", s6,
        lambda c: actions(start=[1], kill={"://id2": {"name": "foo2"}}, upr=True, uplr=True), True)
    def s7(c): setc(c, 1, L("100m", "100Mi")); act(c, "foo2", L("200m", "200Mi"))
    add(7, "resize-container-cpu-memory", "Update container CPU and memory resources", s7,
        lambda c: actions(update={"memory": [it3()], "cpu": [it3()]}), False)
    def s8(c): setc(c, 1, L("100m", "100Mi")); act(c, "foo2", L("200m", "100Mi"))
    add(8, "resize-container-cpu", "Update container CPU resources", s8,
        lambda c: actions(update={"cpu": [item("foo2", "id2", {"ml": 100 * MI, "cl": 100}, {"ml": 100 * MI, "cl": 200})]}), False)
    def s9(c): setc(c, 2, L("200m", "200Mi")); act(c, "foo3", L("200m", "100Mi"))
    add(9, "resize-container-memory", "Update container memory resources", s9,
        lambda c: actions(update={"memory": [item("foo3", "id3", {"ml": 200 * MI, "cl": 200}, {"ml": 100 * MI, "cl": 200})]}), False)
    def s10(c):
        c.spec["resources"] = L("100m", "100Mi")
        setc(c, 1, {"limits": {}}); act(c, "foo2", L("100m", None))
    d10 = {"ml": 100 * MI, "cl": 100}
    add(10, "resize-pod-level-limits-no-mutation", "Update pod-level limits does not mutate container resources", s10,
        lambda c: actions(update={"cpu": [item("foo1", "id1", d10, {}), item("foo3", "id3", d10, {})],
                                  "memory": [item("foo1", "id1", d10, {}), item("foo2", "id2", d10, {"cl": 100}), item("foo3", "id3", d10, {})]},
                          uplr=True), True)
    def s11(c): setc(c, 1, L("200m", None)); act(c, "foo2", L("200m", None))
    add(11, "resize-nothing-when-equal", "Nothing when spec.Resources and status.Resources are equal", s11, lambda c: actions(), False)
    def s12(c): setc(c, 1, {}); act(c, "foo2", {})
    add(12, "resize-nothing-when-equal-besteffort", "Nothing when spec.Resources and status.Resources are equal (besteffort)", s12, lambda c: actions(), False)
    def s13(c):
        c.spec["containers"][0]["resizePolicy"] = [RC("cpu"), NR("memory")]
        setc(c, 0, L("200m", "200Mi")); act(c, "foo1", L("100m", "100Mi"))
    add(13, "resize-cpu-memory-restart-policy-cpu", "Update container CPU and memory resources with Restart policy for CPU", s13,
        lambda c: actions(start=[0], kill={"://id1": {"name": "foo1"}}, upr=True), False)
    def s14(c):
        c.spec["containers"][2]["resizePolicy"] = [NR("cpu"), RC("memory")]
        setc(c, 2, L("200m", "200Mi")); act(c, "foo3", L("100m", "100Mi"))
    add(14, "resize-cpu-memory-restart-policy-memory", "Update container CPU and memory resources with Restart policy for memory", s14,
        lambda c: actions(start=[2], kill={"://id3": {"name": "foo3"}}, upr=True), False)
    def s15(c):
        c.spec["containers"][1]["resizePolicy"] = [RC("cpu"), NR("memory")]
        setc(c, 1, L("100m", "200Mi")); act(c, "foo2", L("100m", "100Mi"))
    add(15, "resize-memory-restart-policy-cpu", "Update container memory resources with Restart policy for CPU", s15,
        lambda c: actions(update={"memory": [item("foo2", "id2", {"ml": 200 * MI, "cl": 100}, {"ml": 100 * MI, "cl": 100})]}), False)
    def s16(c):
        c.spec["containers"][2]["resizePolicy"] = [NR("cpu"), RC("memory")]
        setc(c, 2, L("200m", "100Mi")); act(c, "foo3", L("100m", "100Mi"))
    add(16, "resize-cpu-restart-policy-memory", "Update container CPU resources with Restart policy for memory", s16,
        lambda c: actions(update={"cpu": [item("foo3", "id3", {"ml": 100 * MI, "cl": 200}, {"ml": 100 * MI, "cl": 100})]}), False)
    def s17(c):
        c.spec["containers"][2]["resizePolicy"] = [NR("cpu"), RC("memory")]
        setc(c, 2, {"limits": lim("200m", "200Mi"), "requests": lim("100m", "100Mi")})
        act(c, "foo3", {"limits": lim("200m", "200Mi"), "requests": lim("100m", "200Mi")})
    add(17, "resize-memory-requests-restart-container", "Update container memory (requests only) with RestartContainer policy for memory", s17,
        lambda c: actions(start=[2], kill={"://id3": {"name": "foo3"}}, upr=True), False)
    def s18(c):
        c.spec["containers"][2]["resizePolicy"] = [NR("cpu"), NR("memory")]
        setc(c, 2, {"limits": lim("200m", "200Mi"), "requests": lim("100m", "100Mi")})
        act(c, "foo3", {"limits": lim("200m", "200Mi"), "requests": lim("100m", "200Mi")})
    add(18, "resize-memory-requests-not-required", "Update container memory (requests only) with RestartNotRequired policy for memory", s18,
        lambda c: actions(update={"memory": [item("foo3", "id3", {"ml": 200 * MI, "mr": 100 * MI, "cl": 200, "cr": 100},
                                                   {"ml": 200 * MI, "mr": 200 * MI, "cl": 200, "cr": 100})]}), False)
    return T

TABLES = {
    "TestComputePodActions": t_cpa,
    "TestComputePodActionsWithInitContainers": t_init,
    "TestComputePodActionsWithRestartableInitContainers": t_restartable,
    "TestComputePodActionsWithInitAndEphemeralContainers": t_eph,
    "TestComputePodActionsWithContainerRestartRules": t_rules,
    "TestComputePodActionsForRestartAllContainers": t_rac,
    "TestComputePodActionsForPodResize": t_resize,
}

# Tables the kubelet re-runs under other tables with extra gates.
RERUNS = {
    "TestComputePodActionsWithContainerRestartRules": {"ContainerRestartRules": True},
    "TestComputePodActionsForRestartAllContainers": dict(RAC_GATES),
}

def vector(table, n, slug, desc, c, exp, extra_gates=None, rerun_of=None):
    req, notes = c.request()
    if extra_gates:
        for g, v in extra_gates.items():
            req["featureGates"].setdefault(g, v)
    src = "kubelet %s: %s" % (table, desc)
    if rerun_of:
        src = "kubelet %s re-runs %s: %s" % (rerun_of, table, desc)
        notes = notes + ["%s calls %s with the gates %s set; the expectation is unchanged." % (rerun_of, table, ", ".join("%s=%s" % (k, str(v).lower()) for k, v in extra_gates.items()))]
    v = {"name": slug if not rerun_of else slug + "-under-" + rerun_of.replace("TestComputePodActions", "").lower(), "source": src, "request": req, "expected": {"actions": exp}}
    if notes:
        v["note"] = " ".join(notes)
    return v

def dump(path, v):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(v, indent=2) + "\n")

def main():
    repo = sys.argv[2]
    mode = sys.argv[1]
    vendored = os.path.join(repo, "conformance/actions")
    out = os.path.join(repo, "core/tests/vectors/actions")
    count = {}
    for table, fn in TABLES.items():
        cases = fn()
        present = {int(os.path.basename(p)[:2]): p for p in glob.glob(os.path.join(vendored, table, "*.json"))}
        for (n, slug, desc, c, exp) in cases:
            v = vector(table, n, slug, desc, c, exp)
            if n in present:
                if mode == "check":
                    have = json.load(open(present[n]))
                    for k in ("request", "expected"):
                        if json.dumps(have[k], sort_keys=True) != json.dumps(v[k], sort_keys=True):
                            print("DIFF", table, n, k)
                            print("  vendored:", json.dumps(have[k], sort_keys=True))
                            print("  mine    :", json.dumps(v[k], sort_keys=True))
                    if have["source"] != v["source"]:
                        print("SRC", table, n, have["source"], "|", v["source"])
            elif mode == "write":
                dump(os.path.join(out, table, "%02d-%s.json" % (n, slug)), v)
                count[table] = count.get(table, 0) + 1
    if mode == "write":
        for rerun_of, gates in RERUNS.items():
            for table in ("TestComputePodActions", "TestComputePodActionsWithInitContainers"):
                for (n, slug, desc, c, exp) in TABLES[table]():
                    v = vector(table, n, slug, desc, c, exp, extra_gates=gates, rerun_of=rerun_of)
                    dump(os.path.join(out, rerun_of, table, "%02d-%s.json" % (n, slug)), v)
                    count[rerun_of + "/" + table] = count.get(rerun_of + "/" + table, 0) + 1
        print(json.dumps(count, indent=1))


# ---------------------------------------------------------------- derived vectors
# pkg/api/v1/pod/util_test.go TestContainerHasRestartablePolicy (ContainerShouldRestart),
# expressed through computePodActions: foo1 exited with the case's code, foo2 keeps running.

def t_should_restart():
    rule = lambda action, op, vals: {"action": action, "exitCodes": {"operator": op, "values": vals}}
    cases = [
        ("rule-in-matches-restart", "Rule: 'In' operator matches with 'Restart' action", "Never", [rule("Restart", "In", [42, 50, 60])], None, 42, True),
        ("rule-notin-matches-restart", "Rule: 'NotIn' operator matches with 'Restart' action", "Never", [rule("Restart", "NotIn", [0, 1, 2])], None, 99, True),
        ("rule-in-no-match-container-policy", "Rule: 'In' operator does not match, should fall back to container policy", "Never", [rule("Restart", "In", [10, 20])], None, 30, False),
        ("rule-notin-no-match-container-policy", "Rule: 'NotIn' operator does not match, should fall back to container policy", "Never", [rule("Restart", "NotIn", [10, 20])], None, 10, False),
        ("container-policy-always", "Container Policy: 'Always'", "Always", None, "Never", 0, True),
        ("container-policy-onfailure-exit-0", "Container Policy: 'OnFailure' with exit code 0", "OnFailure", None, "Never", 0, False),
        ("container-policy-onfailure-exit-1", "Container Policy: 'OnFailure' with non-zero exit code", "OnFailure", None, "Never", 1, True),
        ("container-policy-never", "Container Policy: 'Never' should return false", "Never", None, "Always", 1, False),
        ("pod-policy-always", "Pod Policy: Fallback to pod 'Always'", None, None, "Always", 0, True),
        ("pod-policy-onfailure-exit-1", "Pod Policy: Fallback to pod 'OnFailure' with non-zero exit code", None, None, "OnFailure", 1, True),
        ("pod-policy-never", "Pod Policy: Fallback to pod 'Never'", None, None, "Never", 1, False),
        ("pod-policy-unset", "Pod Policy: Fallback with no policies specified should return true", None, None, None, 0, True),
    ]
    T = []
    for n, (slug, desc, cpol, rules, ppol, code, want) in enumerate(cases, 1):
        c = base()
        c.gates = {"ContainerRestartRules": True}
        c.spec["containers"] = c.spec["containers"][:2]
        c.statuses = c.statuses[:2]
        if cpol: c.spec["containers"][0]["restartPolicy"] = cpol
        if rules: c.spec["containers"][0]["restartPolicyRules"] = rules
        if ppol: c.set_policy(ppol)
        c.statuses[0].update(state="exited", exitCode=code)
        c.notes.append("Derived: ContainerShouldRestart(container, podSpec, %d) = %s in the Go table; expressed through computePodActions with foo1 exited (code %d) and foo2 running, so the answer shows as containersToStart [0] or [] (foo2 is kept, so the pod is not killed)." % (code, str(want).lower(), code))
        T.append((n, "should-restart-" + slug, desc, c, actions(start=[0] if want else [])))
    # Newer ContainerShouldRestart: a matching RestartAllContainers rule restarts the container
    # while RestartAllContainersOnContainerExits is on (restartAllContainers itself is false here).
    for n, on in ((13, True), (14, False)):
        c = base()
        c.gates = {"ContainerRestartRules": True, "RestartAllContainersOnContainerExits": on}
        c.spec["containers"] = c.spec["containers"][:2]
        c.statuses = c.statuses[:2]
        c.spec["containers"][0]["restartPolicy"] = "Never"
        c.spec["containers"][0]["restartPolicyRules"] = [rule("RestartAllContainers", "In", [42])]
        c.set_policy("Always")
        c.statuses[0].update(state="exited", exitCode=42)
        c.restart_all = False
        c.notes.append("Derived, not from a Go table: foo1 (restartPolicy Never) exited 42, matching its RestartAllContainers rule, while the pod is not (yet) marked AllContainersRestarting. The newer pkg/api/v1/pod/util.go ContainerShouldRestart answers yes for a matching RestartAllContainers rule while the gate is on; with the gate off the container policy Never decides.")
        slug = "should-restart-restart-all-rule-gate-" + ("on" if on else "off")
        desc = "RestartAllContainers rule matched, gate RestartAllContainersOnContainerExits=" + str(on).lower()
        T.append((n, slug, desc, c, actions(start=[0] if on else [])))
    return T

def t_oom():
    T = []
    def res(mem):
        return {"limits": {"cpu": "100m", "memory": mem}, "requests": {"cpu": "100m", "memory": mem}}
    common = "The Go test asserts only that containersToUpdate is empty and updatePodResources is true; the other fields are derived from computePodActions. InPlacePodVerticalScaling (GA) made explicit."
    # 1 regular container
    c = base()
    c.spec["containers"] = [container("foo1", "busybox", resizePolicy=[NR("cpu"), NR("memory")], resources=res("100Mi"))]
    c.statuses = c.statuses[:1]
    c.actuated = initialize_actuated(c)
    c.spec["containers"][0]["resources"] = res("200Mi")
    c.statuses[0].update(state="exited", exitCode=0)
    c.gates = {"InPlacePodVerticalScaling": True}
    c.notes.append(common + " The test marks the container exited without setting Reason or ExitCode.")
    T.append(("TestComputePodResizeActionForOOMKilledContainer", 1, "oom-killed-container-resized-restart",
               "OOMKilled container with a pending resize: restarted with UpdatePodResources, no in-place update", c,
               actions(start=[0], upr=True)))
    # 2 init container (no regular containers)
    c = base()
    c.spec["containers"] = []
    c.spec["initContainers"] = [container("init1", "bar-image", resources=res("100Mi"), resizePolicy=[NR("cpu"), NR("memory")])]
    c.statuses = [st("initid1", "init1", "exited", H("init1", "bar-image"), 137, reason="OOMKilled")]
    c.actuated = initialize_actuated(c)
    c.spec["initContainers"][0]["resources"] = res("200Mi")
    c.gates = {"InPlacePodVerticalScaling": True}
    c.notes.append(common + " The pod has no regular containers, as in the Go test. The Go test leaves ActiveContainerStatuses nil (init1 then counts as never started); here init1 is active and failed (OOMKilled) and is restarted under restartPolicy Always: both give initContainersToStart [0].")
    T.append(("TestComputePodResizeActionForOOMKilledInitContainer", 1, "oom-killed-init-container-resized-restart",
               "OOMKilled init container with a pending resize: restarted with UpdatePodResources, no in-place update", c,
               actions(init=[0], upr=True)))
    # 3 sidecar
    c = base()
    c.spec["containers"] = [container("app", "busybox")]
    c.spec["initContainers"] = [container("sidecar", "bar-image", restartPolicy="Always", resources=res("100Mi"), resizePolicy=[NR("cpu"), NR("memory")])]
    c.statuses = [st("appid", "app", "running", H("app", "busybox")),
                  st("sidecarid", "sidecar", "exited", H("sidecar", "bar-image"), 137, reason="OOMKilled")]
    c.actuated = initialize_actuated(c)
    c.spec["initContainers"][0]["resources"] = res("200Mi")
    c.gates = {"InPlacePodVerticalScaling": True}
    c.notes.append(common + " The Go test leaves ActiveContainerStatuses nil (the sidecar then counts as never started and is started as the first init container); here both statuses are active, so the pod is initialised, the exited sidecar is restarted and app is kept: both give initContainersToStart [0] and no regular start.")
    T.append(("TestComputePodResizeActionForOOMKilledSidecarContainer", 1, "oom-killed-sidecar-resized-restart",
               "OOMKilled sidecar with a pending resize: restarted with UpdatePodResources, no in-place update", c,
               actions(init=[0], upr=True)))
    return T

def derived(repo):
    out = os.path.join(repo, "core/tests/vectors/actions")
    n_ = 0
    for (n, slug, desc, c, exp) in t_should_restart():
        v = vector("TestContainerHasRestartablePolicy", n, slug, desc, c, exp)
        v["source"] = "kubelet pkg/api/v1/pod/util_test.go TestContainerHasRestartablePolicy: " + desc if n <= 12 else "derived: " + desc
        dump(os.path.join(out, "TestContainerHasRestartablePolicy", "%02d-%s.json" % (n, slug)), v); n_ += 1
    for (table, n, slug, desc, c, exp) in t_oom():
        v = vector(table, n, slug, desc, c, exp)
        dump(os.path.join(out, table, "%02d-%s.json" % (n, slug)), v); n_ += 1
    print(n_)

if __name__ == "__main__":
    # translate.py check <repo>   compare the vendored cases with this translation
    # translate.py write <repo>   (re)write the held-out cases and the re-runs
    # translate.py derived <repo> (re)write the derived vectors
    if sys.argv[1] == "derived":
        derived(sys.argv[2])
    else:
        main()
