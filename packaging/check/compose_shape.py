"""Checks packaging/compose/compose.yaml's shape, since no container engine runs it here.

Usage: python3 compose_shape.py COMPOSE_FILE NGINX_CONF

The topology of the suite's two-node tests: PostgreSQL, two Gatehouse nodes on one database with one public
URL, nginx in front of both (and the only trusted proxy), every file it mounts or builds from present.
"""
import os
import re
import sys

import yaml

compose_path, nginx_path = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(compose_path))
doc = yaml.safe_load(open(compose_path))  # resolves the x-gatehouse-node anchor and merge keys
problems = []


def need(condition, message):
    if not condition:
        problems.append(message)


services = doc.get("services", {})
need(set(services) == {"postgres", "gatehouse-a", "gatehouse-b", "nginx"}, f"services are {sorted(services)}")
nodes = [services.get("gatehouse-a", {}), services.get("gatehouse-b", {})]
envs = [node.get("environment", {}) for node in nodes]
for name, node, env in zip(["gatehouse-a", "gatehouse-b"], nodes, envs):
    build = node.get("build", {})
    need(os.path.isfile(os.path.join(here, build.get("context", "."), build.get("dockerfile", ""))), f"{name}: no Containerfile at its build path")
    need(env.get("GATEHOUSE_MODE") == "production", f"{name}: not production mode")
    need(str(env.get("GATEHOUSE_DATABASE_URL", "")).startswith("postgres://") and "@postgres:" in env.get("GATEHOUSE_DATABASE_URL", ""), f"{name}: database is not the postgres service")
    need(str(env.get("GATEHOUSE_PUBLIC_URL", "")).startswith("https://"), f"{name}: public URL is not https")
    need(node.get("depends_on", {}).get("postgres", {}).get("condition") == "service_healthy", f"{name}: does not wait for a healthy postgres")
    need(any(str(v).endswith(":/var/lib/gatehouse") for v in node.get("volumes", [])), f"{name}: no volume for /var/lib/gatehouse")
    need("master_key" in node.get("secrets", []), f"{name}: no master key secret")
need(envs[0] == envs[1], "the two nodes' environments differ")
need(nodes[0].get("volumes") != nodes[1].get("volumes"), "the two nodes share a data volume")

nginx = services.get("nginx", {})
nginx_ip = nginx.get("networks", {}).get("gatehouse", {}).get("ipv4_address")
need(envs[0].get("GATEHOUSE_TRUSTED_PROXIES") == nginx_ip, f"trusted proxy {envs[0].get('GATEHOUSE_TRUSTED_PROXIES')} is not nginx's address {nginx_ip}")
subnet = doc.get("networks", {}).get("gatehouse", {}).get("ipam", {}).get("config", [{}])[0].get("subnet", "")
need(nginx_ip and nginx_ip.rsplit(".", 1)[0] == subnet.split("/")[0].rsplit(".", 1)[0], f"nginx's address {nginx_ip} is outside {subnet}")
for mount in nginx.get("volumes", []):
    source = mount.split(":")[0]
    need(os.path.exists(os.path.join(here, source)) or source in ("./tls",), f"nginx mounts {source}, which is missing")
need("healthcheck" in services.get("postgres", {}), "postgres has no health check")
need("master_key" in doc.get("secrets", {}), "no master_key secret defined")

conf = open(nginx_path).read()
port = envs[0].get("GATEHOUSE_PORT")
upstreams = re.findall(r"^\s*server\s+([\w.-]+):(\d+)", conf, re.M)
need(sorted(upstreams) == [("gatehouse-a", port), ("gatehouse-b", port)], f"nginx upstreams {upstreams} are not both nodes on port {port}")
need("X-Forwarded-Proto" in conf, "nginx does not send X-Forwarded-Proto")

if problems:
    sys.exit("compose file: " + "; ".join(problems))
print(f"compose file: {len(services)} services, two production nodes on one PostgreSQL, nginx at {nginx_ip} in front of both: shape ok")
