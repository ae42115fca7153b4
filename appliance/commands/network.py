"""`appliance network [--write DIR]`: the systemd drop-ins that let the service reach Home Assistant and be
reached on the Wyoming services port, and nothing else."""

from __future__ import annotations

import argparse
from typing import Final

from appliance import EXIT_OK

RESTART: Final = "sudo systemctl daemon-reload && sudo systemctl restart appliance"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common
    from appliance.setup.network import DROPIN, UNIT_DIR, WYOMING_DROPIN

    parser = sub.add_parser(
        "network", help="print or write the drop-ins that let the service reach Home Assistant and serve "
        "the Wyoming port, and nothing else",
        description="The service has no network (PrivateNetwork=yes). With home_assistant enabled, this "
        f"makes the drop-in {DROPIN} that lets it reach the host of home_assistant.url (its addresses, "
        "resolved now), localhost and the DNS servers needed to look that host up, and nothing else. "
        f"With wyoming.services set, the drop-in {WYOMING_DROPIN} lets it listen on that port only, "
        "reached from wyoming.peers (or the private networks), and connect to wyoming.satellites (a satellite "
        "named by host name: the private networks). A drop-in that is not needed is not "
        "made, and --write removes one.")
    parser.add_argument("--write", metavar="DIR",
                        help=f"write (or remove) the drop-in under this unit folder ({UNIT_DIR}); "
                        "else print it")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    from appliance.cli import load_config
    from appliance.setup import network

    cfg = load_config(args)
    peer = network.peer(cfg.home_assistant.url) if cfg.home_assistant.enabled else None
    text = None if peer is None else network.dropin_text(peer, cfg.source)
    wyoming = network.wyoming_dropin_text(cfg.wyoming, cfg.source)
    if args.write is None:
        if text is None and wyoming is None:
            print("home_assistant is off: the service has no network (PrivateNetwork=yes), and no drop-in "
                  "is needed.")
        print("\n".join(f"# {name}\n{body}" if text and wyoming else body
                        for name, body in ((network.DROPIN, text), (network.WYOMING_DROPIN, wyoming)) if body),
              end="")
        return EXIT_OK
    path = f"{args.write.rstrip('/')}/{network.DROPIN}"
    done = network.write(args.write, text)
    listening = " (the Wyoming port has its own drop-in)" if wyoming else ""
    if peer is not None:
        reach = f"{peer.host} ({', '.join(peer.addresses)})" if peer.named else peer.host
        dns = f", the DNS servers {', '.join(peer.remote_resolvers)}" if peer.remote_resolvers else ""
        if peer.allowed == ("localhost",):
            reach = f"Home Assistant at {reach} on this machine"
        else:
            reach = f"Home Assistant at {reach}, localhost{dns}"
        print(f"{path} {'is up to date' if done == 'unchanged' else 'written'}: the service may reach "
              f"{reach} and nothing else{listening}.")
    elif done == "removed":
        print(f"removed {path}: home_assistant is off, so the service reaches no one"
              f"{listening or ' and has no network'}.")
    else:
        print(f"home_assistant is off: no drop-in is needed for it (there is none at {path}).")
    changed = _write_wyoming(args.write, wyoming, cfg.wyoming.services)
    if changed or done in ("written", "removed"):
        print(f"then: {RESTART}")
    return EXIT_OK


def _write_wyoming(unit_dir: str, text: str | None, services: str) -> bool:
    """Write or remove the Wyoming drop-in and say so; True when it changed."""
    from appliance.setup import network

    path = f"{unit_dir.rstrip('/')}/{network.WYOMING_DROPIN}"
    done = network.write(unit_dir, text, network.WYOMING_DROPIN)
    if done == "written":
        print(f"{path} written: the service may listen on {services} and nothing else.")
    elif done == "unchanged":
        print(f"{path} is up to date.")
    elif done == "removed":
        print(f"removed {path}: wyoming.services is off, so nothing listens.")
    return done in ("written", "removed")
