/* The YAML that `oc get ... -o yaml` writes, read without a library: block mappings and
   sequences (a sequence may sit at its key's indentation), plain, single- and double-quoted
   scalars (also wrapped over several lines), block scalars (| and >, with - or + chomping),
   empty flow collections and flow sequences of plain values, comments and document markers.
   Plain values are typed as YAML 1.1 does for what ClusterVersions hold: null, booleans,
   numbers, else strings. Anything else fails with the line, asking for -o json instead. */
"use strict";

const SiteGenYaml = (() => {
  function parse(source) {
    const lines = source.replace(/\r\n?/g, "\n").split("\n");
    let i = 0;
    const indentOf = (line) => /^ */.exec(line)[0].length;
    const blank = (line) => /^\s*(#.*)?$/.test(line) || /^(---|\.\.\.)\s*(#.*)?$/.test(line);
    const fail = (message) => {
      throw new Error(`line ${i + 1}: ${message}; paste the output of -o json instead`);
    };
    const skip = () => {
      while (i < lines.length && blank(lines[i])) i++;
      if (i < lines.length && /^\s*\t/.test(lines[i])) fail("a tab in the indentation");
    };
    const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s"'#\-?:{[][^:]*?|-[^\s:][^:]*?)\s*:(?:\s+(.*))?$/;

    function node(minimum) {
      skip();
      if (i >= lines.length || indentOf(lines[i]) < minimum) return null;
      const indent = indentOf(lines[i]);
      const rest = lines[i].slice(indent);
      if (rest === "-" || rest.startsWith("- ")) return sequence(indent);
      if (KEY.test(rest)) return mapping(indent);
      return scalarLines(rest, indent - 1);
    }

    function mapping(indent) {
      const result = {};
      for (;;) {
        skip();
        if (i >= lines.length || indentOf(lines[i]) < indent) break;
        if (indentOf(lines[i]) > indent) fail("unexpected indentation");
        const rest = lines[i].slice(indent);
        if (rest === "-" || rest.startsWith("- ")) break;
        const match = KEY.exec(rest);
        if (!match) fail("expected a “key: value” line");
        const key = unquote(match[1].trim());
        result[key] = value(match[2] || "", indent);
      }
      return result;
    }

    /* What follows "key:" (or "- "): on the same line, or in the lines below it. */
    function value(rest, indent) {
      const text = rest.replace(/^#.*$/, "").trim();
      i++;
      if (!text) {
        skip();
        if (i < lines.length && indentOf(lines[i]) === indent && /^-( |$)/.test(lines[i].slice(indent))) {
          return sequence(indent);
        }
        return node(indent + 1);
      }
      if (/^[|>]/.test(text)) return blockScalar(text, indent);
      i--;
      return scalarLines(rest.trim(), indent);
    }

    function sequence(indent) {
      const result = [];
      for (;;) {
        skip();
        if (i >= lines.length || indentOf(lines[i]) !== indent) break;
        const rest = lines[i].slice(indent);
        if (!(rest === "-" || rest.startsWith("- "))) break;
        const after = rest.slice(1);
        const column = indent + 1 + /^ */.exec(after)[0].length;
        const item = after.trim();
        if (!item || item.startsWith("#")) {
          i++;
          result.push(node(indent + 1));
        } else if (KEY.test(item) || item === "-" || item.startsWith("- ")) {
          lines[i] = " ".repeat(column) + item;  // the item's first line, as if on its own line
          result.push(item.startsWith("-") && !KEY.test(item) ? sequence(column) : mapping(column));
        } else if (/^[|>]/.test(item)) {
          i++;
          result.push(blockScalar(item, indent));
        } else {
          result.push(scalarLines(item, indent));
        }
      }
      return result;
    }

    /* A scalar starting on line i, possibly wrapped over the following, more indented lines. */
    function scalarLines(first, indent) {
      if (first.startsWith('"')) return doubleQuoted(first);
      if (first.startsWith("'")) return singleQuoted(first);
      let textValue = first.replace(/\s+#.*$/, "");
      i++;
      while (i < lines.length && indentOf(lines[i]) > indent && !/^\s*#/.test(lines[i])) {
        const line = lines[i].trim();
        textValue += line ? (textValue.endsWith("\n") ? "" : " ") + line.replace(/\s+#.*$/, "") : "\n";
        i++;
      }
      return typed(textValue);
    }

    /* A quoted scalar's lines up to its closing quote, folded as YAML folds them: a line break is a
       space, each empty line a newline. ``closed`` tells whether the text so far ends the scalar. */
    function quotedLines(first, closed, what) {
      const parts = [first];
      while (!closed(parts.join("\n"))) {
        i++;
        if (i >= lines.length) fail(`a ${what} string that never ends`);
        parts.push(lines[i].trim());
      }
      i++;
      const whole = parts.join("\n").trim();
      const end = closed(whole);  // the length of the quoted text
      const inner = whole.slice(1, end - 1).split("\n").map((part, k, all) =>
        (k === 0 ? part.trimEnd() : k === all.length - 1 ? part.trimStart() : part.trim()));
      let out = inner[0];
      let breaks = 0;
      inner.slice(1).forEach((part, k) => {
        if (part === "" && k < inner.length - 2) {
          breaks++;
          return;
        }
        const escapedBreak = /(^|[^\\])(\\\\)*\\$/.test(out);  // "\" ending a double-quoted line: no space
        if (escapedBreak && !breaks) out = out.slice(0, -1);
        out += (breaks ? "\n".repeat(breaks) : escapedBreak ? "" : " ") + part;
        breaks = 0;
      });
      return out;
    }

    function doubleQuoted(first) {
      const closed = (text) => {
        const match = /^"(?:[^"\\]|\\[\s\S])*"(?=\s*(#.*)?$)/.exec(text.trim());
        return match ? match[0].length : 0;
      };
      const folded = quotedLines(first, closed, "double-quoted")
        .replace(/[\u0000-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
      const escapes = {"0": "\\u0000", a: "\\u0007", v: "\\u000b", e: "\\u001b", " ": " ", N: "\\u0085",
                       _: "\\u00a0", L: "\\u2028", P: "\\u2029"};
      try {
        return JSON.parse(`"${folded.replace(/\\(x[0-9a-fA-F]{2}|U[0-9a-fA-F]{8}|[0abtnvfre "/\\N_LPu])/g, (all, c) => {
          if (c[0] === "x") return `\\u00${c.slice(1)}`;
          if (c[0] === "U") return JSON.stringify(String.fromCodePoint(parseInt(c.slice(1), 16))).slice(1, -1);
          return escapes[c] ?? all;
        })}"`);
      } catch {
        return fail("a double-quoted string with an escape this reader does not know");
      }
    }

    function singleQuoted(first) {
      const closed = (text) => {
        const match = /^'(?:[^']|'')*'(?=\s*(#.*)?$)/.exec(text.trim());
        return match ? match[0].length : 0;
      };
      return quotedLines(first, closed, "single-quoted").replace(/''/g, "'");
    }

    function blockScalar(header, indent) {
      const [, style, chomp] = /^([|>])([-+]?)/.exec(header);  // line i is the first after the header
      const body = [];
      let blockIndent = null;
      while (i < lines.length) {
        const line = lines[i];
        if (line.trim() === "") {
          body.push("");
          i++;
          continue;
        }
        const own = indentOf(line);
        if (own <= indent) break;
        if (blockIndent === null) blockIndent = own;
        if (own < blockIndent) break;
        body.push(line.slice(blockIndent));
        i++;
      }
      let trailing = 0;
      while (body.length && body[body.length - 1] === "") {
        body.pop();
        trailing++;
      }
      let textValue = style === "|" ? body.join("\n")
        : body.reduce((out, line, k) => (k === 0 ? line : out + (line === "" ? "\n" : out.endsWith("\n") ? line : " " + line)), "");
      if (chomp === "+") textValue += "\n".repeat(trailing + 1);
      else if (chomp === "" && body.length) textValue += "\n";
      return textValue;
    }

    function typed(plain) {
      const textValue = plain.trim();
      if (/^(null|Null|NULL|~|)$/.test(textValue)) return null;
      if (/^(true|True|TRUE)$/.test(textValue)) return true;
      if (/^(false|False|FALSE)$/.test(textValue)) return false;
      if (/^[-+]?(0|[1-9]\d*)$/.test(textValue)) return Number(textValue);
      if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(textValue)) return Number(textValue);
      if (textValue === "[]") return [];
      if (textValue === "{}") return {};
      if (/^\[[^[\]{}"']*\]$/.test(textValue)) return textValue.slice(1, -1).split(",").map((item) => typed(item));
      if (/^[[{]/.test(textValue)) return fail("a flow collection this reader does not know");
      return textValue;
    }

    function unquote(key) {
      if (key.startsWith('"')) return JSON.parse(key);
      if (key.startsWith("'")) return key.slice(1, -1).replace(/''/g, "'");
      return key;
    }

    const result = node(0);
    skip();
    if (i < lines.length) fail("text after the end of the document");
    return result;
  }

  return {parse};
})();
