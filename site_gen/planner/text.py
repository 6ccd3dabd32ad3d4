"""A planner answer as plain text, for terminals and scripts (`site-gen plan`)."""

from __future__ import annotations


def answer_text(answer: dict) -> str:
    lines = [*answer["notes"]]
    if answer["message"]:
        lines.append(answer["message"])
    if answer["procedure"]:
        lines += ["", "EUS-to-EUS: the steps in order"]
        lines += [f"  {i}. {step}" for i, step in enumerate(answer["procedure"], 1)]
    for section in answer["sections"]:
        lines += ["", section["heading"], section["size"], *section["notices"],
                  "Route: " + " -> ".join(section["route"]), section["channelsLine"]]
        for i, hop in enumerate(section["hops"], 1):
            if hop["set"]:
                verb = "Set" if i == 1 else "Switch"
                lines.append(f"     {verb} the cluster's channel to {hop['set']}.")
            kind = "conditional" if hop["risks"] else "recommended"
            flags = "".join(f" [{flag}]" for flag in hop["flags"])
            lines.append(f"  {i}. {hop['from']} -> {hop['to']} ({kind}){flags} in {', '.join(hop['channels'])}")
            if hop["risks"]:
                lines.append(f"     risks: {', '.join(hop['risks'])}")
            if hop["alternatives"]:
                lines.append(f"     instead of {hop['to']}: " + ", ".join(
                    alt["version"] + (f" ({'; '.join(alt['notes'])})" if alt["notes"] else "")
                    for alt in hop["alternatives"]))
    return "\n".join(lines).strip("\n") + "\n"
