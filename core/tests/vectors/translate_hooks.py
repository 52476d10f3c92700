#!/usr/bin/env python3
"""Writes core/tests/vectors/hooks/TestRun*/ : the kubelet's lifecycle-handler tests
(pkg/kubelet/lifecycle/handlers_test.go, kubernetes/kubernetes, commit not recorded)
translated into function-level hook vectors (`postStartHook`, `killContainer`,
`hookFailureMessage`, see core/src/conformance/hooks.rs).

Development aid: `python3 core/tests/vectors/translate_hooks.py` rewrites the folders.
Each case is the Go test's input and the Go test's own expectation; where the Go test
compares an http.Header map, the expected header list is in podplan's order (given
headers, then User-Agent, then Accept) and the User-Agent is the 1.37 kubelet's
(`kube-lifecycle/1.37`; the Go unit-test binary has no version and sends
`kube-lifecycle/.`).
"""
import json
import os
import re

SRC = "kubernetes/kubernetes pkg/kubelet/lifecycle/handlers_test.go@(commit not recorded)"
UA = ["User-Agent", "kube-lifecycle/1.37"]
ACCEPT = ["Accept", "*/*"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hooks")


def pod(container):
    return {"metadata": {"name": "podFoo", "namespace": "nsFoo"}, "spec": {"containers": [container]}}


def container(post_start=None, pre_stop=None, ports=None):
    c = {"name": "containerFoo", "lifecycle": {}}
    if post_start is not None:
        c["lifecycle"]["postStart"] = post_start
    if pre_stop is not None:
        c["lifecycle"]["preStop"] = pre_stop
    if ports:
        c["ports"] = ports
    return c


def slug(name):
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s[:60]


def write(test, n, case, vector):
    d = os.path.join(ROOT, test)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"{n:02d}-{slug(case)}.json")
    with open(path, "w") as f:
        json.dump(vector, f, indent=2)
        f.write("\n")


def http_handler(url, scheme, host, port, path, headers):
    return {"type": "httpGet", "scheme": scheme, "host": host, "port": port, "path": path,
            "url": url, "headers": headers}


def post_start(test, n, case, c, pod_ip, expected, note, compare="subset"):
    v = {"name": f"{test}/{case}", "source": f"{SRC} {test} {case}", "function": "postStartHook",
         "input": {"pod": pod(c), "container": "containerFoo"},
         "expected": {"postStart": expected}, "compare": compare, "note": note}
    if pod_ip is not None:
        v["input"]["podIP"] = pod_ip
    write(test, n, case, v)


# TestRunHTTPHandler: the table (name, podIP, httpGet, expected NewURL/NewHeader).
QUUX = [{"name": "quux", "containerPort": 8080}]
table = [
    ("missing pod IP", "", {"path": "foo", "port": "42", "host": "example.test", "scheme": "http"},
     "http://example.test:42/foo", "example.test", 42, "foo", [UA, ACCEPT]),
    ("missing host", "233.252.0.1", {"path": "foo", "port": "42", "scheme": "http"},
     "http://233.252.0.1:42/foo", "233.252.0.1", 42, "foo", [UA, ACCEPT]),
    ("path with leading slash", "233.252.0.1", {"path": "/foo", "port": "42", "scheme": "http"},
     "http://233.252.0.1:42/foo", "233.252.0.1", 42, "/foo", [UA, ACCEPT]),
    ("path without leading slash", "233.252.0.1", {"path": "foo", "port": "42", "scheme": "http"},
     "http://233.252.0.1:42/foo", "233.252.0.1", 42, "foo", [UA, ACCEPT]),
    ("port resolution", "233.252.0.1", {"path": "foo", "port": "quux", "scheme": "http"},
     "http://233.252.0.1:8080/foo", "233.252.0.1", 8080, "foo", [UA, ACCEPT]),
    ("https", "233.252.0.1", {"path": "foo", "port": "4430", "scheme": "https"},
     "https://233.252.0.1:4430/foo", "233.252.0.1", 4430, "foo", [UA, ACCEPT]),
    ("unknown scheme", "233.252.0.1", {"path": "foo", "port": "80", "scheme": "baz"},
     "baz://233.252.0.1:80/foo", "233.252.0.1", 80, "foo", [UA, ACCEPT]),
    ("query param", "233.252.0.1", {"path": "foo?k=v", "port": "80", "scheme": "http"},
     "http://233.252.0.1:80/foo?k=v", "233.252.0.1", 80, "foo?k=v", [UA, ACCEPT]),
    ("fragment", "233.252.0.1", {"path": "foo#frag", "port": "80", "scheme": "http"},
     "http://233.252.0.1:80/foo#frag", "233.252.0.1", 80, "foo#frag", [UA, ACCEPT]),
    ("headers", "233.252.0.1", {"path": "foo", "port": "80", "scheme": "http",
                                "httpHeaders": [{"name": "Foo", "value": "bar"}]},
     "http://233.252.0.1:80/foo", "233.252.0.1", 80, "foo", [["Foo", "bar"], UA, ACCEPT]),
    ("host header", "233.252.0.1", {"host": "example.test", "path": "foo", "port": "80", "scheme": "http",
                                    "httpHeaders": [{"name": "Host", "value": "from.header"}]},
     "http://example.test:80/foo", "example.test", 80, "foo", [["Host", "from.header"], UA, ACCEPT]),
]
for i, (case, ip, get, url, host, port, path, headers) in enumerate(table, 1):
    scheme = url.split(":")[0]
    post_start("TestRunHTTPHandler", i, case, container({"httpGet": get}, ports=QUUX), ip,
               {"handler": http_handler(url, scheme, host, port, path, headers)},
               "The Go test checks the URL and the header map the fake HTTP client received "
               "(sub-test `consistent`); header order and User-Agent: see translate_hooks.py.")

post_start("TestRunHandlerHttp", 1, "http", container({"httpGet": {"host": "foo", "port": 8080, "path": "bar"}}),
           "127.0.0.1", {"handler": http_handler("http://foo:8080/bar", "http", "foo", 8080, "bar", [UA, ACCEPT])},
           "The fake HTTP client got http://foo:8080/bar (the pod IP is not used: host is set).")
post_start("TestRunHandlerHttpWithHeaders", 1, "headers",
           container({"httpGet": {"host": "foo", "port": 8080, "path": "/bar",
                                  "httpHeaders": [{"name": "Foo", "value": "bar"}]}}),
           "127.0.0.1", {"handler": http_handler("http://foo:8080/bar", "http", "foo", 8080, "/bar",
                                                 [["Foo", "bar"], UA, ACCEPT])},
           "URL http://foo:8080/bar and header Foo: bar.")
post_start("TestRunHandlerHttps", 1, "consistent",
           container({"httpGet": {"scheme": "HTTPS", "host": "foo", "port": "70", "path": "bar"}}),
           "127.0.0.1", {"handler": http_handler("https://foo:70/bar", "https", "foo", 70, "bar", [UA, ACCEPT])},
           "Scheme HTTPS is lower-cased: https://foo:70/bar.")
post_start("TestRunHandlerHTTPPort", 1, "consistent with port",
           container({"httpGet": {"scheme": "HTTPS", "host": "foo", "port": "70", "path": "bar"}}),
           "127.0.0.1", {"handler": http_handler("https://foo:70/bar", "https", "foo", 70, "bar", [UA, ACCEPT])},
           "Port \"70\" (a string) is a number: https://foo:70/bar.")
post_start("TestRunHandlerHTTPPort", 2, "consistent without port",
           container({"httpGet": {"scheme": "HTTPS", "host": "foo", "port": "", "path": "bar"}}),
           "127.0.0.1", {"handler": None, "invalid": "couldn't find port:  in container \"containerFoo\""},
           "Port \"\" names no container port: the handler fails before any request (the Go test "
           "expects an error and no URL). podplan's message names the container instead of Go's struct dump.")
post_start("TestRunHandlerExec", 1, "exec", container({"exec": {"command": ["ls", "-a"]}}), None,
           {"handler": {"type": "exec", "command": ["ls", "-a"]}},
           "The fake command runner got [ls -a] for the container.")
post_start("TestRunHandlerNil", 1, "nil", container({}), None,
           {"handler": None},
           "An empty handler cannot run (the Go test expects an error); podplan's `invalid` says "
           "`no action set` where Go prints the handler struct.")


def failure(test, n, case, c, hook, pod_ip, error, output, message, note):
    v = {"name": f"{test}/{case}", "source": f"{SRC} {test}", "function": "hookFailureMessage",
         "input": {"pod": pod(c), "container": "containerFoo", "hook": hook, "error": error},
         "expected": {"message": message}, "compare": "exact", "note": note}
    if output is not None:
        v["input"]["output"] = output
    if pod_ip is not None:
        v["input"]["podIP"] = pod_ip
    write(test, n, case, v)


failure("TestRunHandlerExecFailure", 1, "exec failure",
        container({"exec": {"command": ["ls", "--a"]}}), "postStart", None,
        "invalid command", "invalid command",
        "Exec lifecycle hook ([ls --a]) for Container \"containerFoo\" in Pod \"podFoo_nsFoo()\" "
        "failed - error: invalid command, message: \"invalid command\"",
        "The fake runner fails with `invalid command` and the same output; Run returns this message.")
failure("TestRunHandlerHttpFailure", 1, "http failure",
        container({"httpGet": {"host": "foo", "port": 8080, "path": "bar"}}), "postStart", "127.0.0.1",
        "fake http error", None,
        "HTTP lifecycle hook (bar) for Container \"containerFoo\" in Pod \"podFoo_nsFoo()\" "
        "failed - error: fake http error",
        "The fake HTTP client fails with `fake http error`; Run returns this message.")


def sleep_kill(n, case, seconds, grace, expected, note):
    c = container(pre_stop={"sleep": {"seconds": seconds}})
    p = pod(c)
    p["spec"]["terminationGracePeriodSeconds"] = grace
    v = {"name": f"TestRunSleepHandler/{case}", "source": f"{SRC} TestRunSleepHandler {case}",
         "function": "killContainer",
         "input": {"pod": p, "container": "containerFoo", "preStopMillis": seconds * 1000},
         "expected": expected, "compare": "subset", "note": note}
    write("TestRunSleepHandler", n, case, v)


sleep_kill(1, "valid seconds", 5, 30,
           {"preStopRuns": True, "preStopTimeoutSeconds": 30, "preStopElapsedSeconds": 5,
            "stopGracePeriodSeconds": 25, "preStop": {"handler": {"type": "sleep", "seconds": 5}}},
           "The Go test runs the 5 s sleep under a 30 s context and expects success; the grace "
           "accounting (25 s left for StopContainer) is killContainer's.")
sleep_kill(2, "longer than TerminationGracePeriodSeconds", 3, 2,
           {"preStopRuns": True, "preStopTimeoutSeconds": 2, "preStopElapsedSeconds": 2,
            "stopGracePeriodSeconds": 2, "preStop": {"handler": {"type": "sleep", "seconds": 3}}},
           "The Go test runs a 3 s sleep under a 2 s context: it fails with `container terminated "
           "before sleep hook finished` (see the TestRunSleepHandler failure-message vector); the kubelet "
           "stops waiting at the grace period and StopContainer gets the 2 s minimum.")
failure("TestRunSleepHandler", 3, "longer than TerminationGracePeriodSeconds message",
        container(pre_stop={"sleep": {"seconds": 3}}), "preStop", None,
        "container terminated before sleep hook finished", None,
        "Sleep lifecycle hook (3) for Container \"containerFoo\" in Pod \"podFoo_nsFoo()\" "
        "failed - error: container terminated before sleep hook finished",
        "The Go test asserts the error `container terminated before sleep hook finished`; Run's "
        "message wraps it as shown.")
