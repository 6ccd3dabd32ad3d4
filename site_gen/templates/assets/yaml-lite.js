/* The YAML that `oc get ... -o yaml` writes, and what hand edits add, read without a library: block
   mappings and sequences (a sequence may sit at its key's indentation), plain, single- and
   double-quoted scalars (also wrapped over several lines), block scalars (| and >, with - or +
   chomping), flow collections (nested, quoted, over several lines), anchors, aliases and merge
   keys (<<), the !!str tag, comments and document markers. Plain values are typed as YAML 1.1 does
   for what ClusterVersions hold: null, booleans, numbers, else strings. Anything else (other tags,
   an anchor or tag on a key, a key in a flow sequence) fails with the line, asking for -o json. */
"use strict";

const SiteGenYaml = (() => {
  const MAX_DEPTH = 128;

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
    const anchors = new Map();
    /* The alias bound of site_gen/inputs/bounded_yaml.py (serde_yaml's): the document, aliases
       expanded, may hold at most MAX_EXPANSION times the nodes written (and always 10,000). Every
       scalar and collection written counts once; a collection's size is 1 + its keys' and values'
       (an alias: its anchor's), as the Python counts them. */
    const MAX_EXPANSION = 100, MIN_BUDGET = 10000;
    /* Collections nest at most MAX_DEPTH levels (bounded_yaml.py's bound, serde_yaml's recursion
       limit): checked as each one opens, before a deeper one could exhaust the stack. */
    let depth = 0;
    const enter = () => {
      if (++depth > MAX_DEPTH) {
        const error = new Error(`line ${i + 1}: nested more than ${MAX_DEPTH} levels deep`);
        error.bound = true;
        throw error;
      }
    };
    const leave = (collection) => {
      depth--;
      return collection;
    };
    let written = 0;
    const sizes = new WeakMap();
    const sizeOf = (value) => (value !== null && typeof value === "object" ? sizes.get(value) ?? 1 : 1);
    const sized = (collection, size) => {
      written++;
      sizes.set(collection, size);
      return collection;
    };
    /* What node() found below a key or dash; nothing there is an empty (null) scalar, written. */
    const emptyOr = (found) => {
      if (found === null) written++;
      return found;
    };
    const ALIAS = /^\*([^\s,[\]{}]+)\s*(#.*)?$/;

    /* An anchor (&name) and a tag (!tag) before a value, in either order; the rest is the value. */
    function properties(text) {
      let anchor = null;
      let tag = null;
      let rest = text;
      for (;;) {
        const a = anchor === null && /^&([^\s,[\]{}]+)(\s+|$)/.exec(rest);
        if (a) {
          [anchor, rest] = [a[1], rest.slice(a[0].length)];
          continue;
        }
        const t = tag === null && /^(![^\s,[\]{}]*)(\s+|$)/.exec(rest);
        if (t) {
          [tag, rest] = [t[1], rest.slice(t[0].length)];
          continue;
        }
        return {anchor, tag, rest: rest.startsWith("#") ? "" : rest};
      }
    }

    function alias(name) {
      if (!anchors.has(name)) fail(`the alias *${name} names no anchor before it`);
      return anchors.get(name);
    }

    /* A value with its properties: the anchor remembers it; !!str keeps a plain scalar's text. */
    function withProperties(props, read) {
      if (props.tag !== null && props.tag !== "!!str") fail(`the tag ${props.tag}, which this reader does not know`);
      const result = read(props.tag === "!!str");
      if (result === null || typeof result !== "object") written++;  // a scalar (collections count themselves)
      if (props.anchor !== null) anchors.set(props.anchor, result);
      return result;
    }

    function node(minimum) {
      skip();
      if (i >= lines.length || indentOf(lines[i]) < minimum) return null;
      const indent = indentOf(lines[i]);
      const rest = lines[i].slice(indent);
      if (rest === "-" || rest.startsWith("- ")) return sequence(indent);
      if (KEY.test(rest)) return mapping(indent);
      return inline(rest, indent - 1);
    }

    /* A value starting on line i after its key or dash (text: what follows them there): an alias, a
       flow collection, a block scalar, a scalar; with an anchor or tag, also a block node below. */
    function inline(text, indent, sequenceAtIndent = false) {
      const props = properties(text.trim());
      const rest = props.rest;
      const alone = ALIAS.exec(rest);
      if (alone) {
        if (props.anchor !== null || props.tag !== null) fail("an anchor or tag on an alias");
        const found = alias(alone[1]);
        i++;
        return found;
      }
      return withProperties(props, (raw) => {
        if (!rest) {
          i++;
          skip();
          if (sequenceAtIndent && i < lines.length && indentOf(lines[i]) === indent &&
              /^-( |$)/.test(lines[i].slice(indent))) return sequence(indent);
          return node(indent + 1);
        }
        if (rest.startsWith("[") || rest.startsWith("{")) return flow(rest);
        if (/^[|>]/.test(rest)) {
          i++;
          return blockScalar(rest, indent);
        }
        if (KEY.test(rest)) fail("an anchor or tag before a key");
        return scalarLines(rest, indent, raw);
      });
    }

    function mapping(indent) {
      enter();
      const result = {};
      const merges = [];
      let size = 1;
      for (;;) {
        skip();
        if (i >= lines.length || indentOf(lines[i]) < indent) break;
        if (indentOf(lines[i]) > indent) fail("unexpected indentation");
        const rest = lines[i].slice(indent);
        if (rest === "-" || rest.startsWith("- ")) break;
        const match = KEY.exec(rest);
        if (!match) fail("expected a “key: value” line");
        if (/^[&*!]/.test(match[1])) fail("an anchor, alias or tag on a key");
        written++;  // the key
        if (match[1].trim() === "<<") {
          merges.push(value(match[2] || "", indent));
          size += 1 + sizeOf(merges[merges.length - 1]);
          continue;
        }
        const key = unquote(match[1].trim());
        result[key] = value(match[2] || "", indent);
        size += 1 + sizeOf(result[key]);
      }
      return leave(sized(merged(result, merges), size));
    }

    /* Merge keys (<<: *base, or a list of them): keys of their own win, then earlier maps' keys. */
    function merged(result, merges) {
      if (!merges.length) return result;
      const own = new Set(Object.keys(result));
      const out = {};
      for (const merge of merges) {
        for (const map of Array.isArray(merge) ? merge : [merge]) {
          if (map === null || typeof map !== "object" || Array.isArray(map)) fail("a merge key (<<) that is not a mapping");
          for (const [key, item] of Object.entries(map)) if (!own.has(key) && !(key in out)) out[key] = item;
        }
      }
      return Object.assign(out, result);
    }

    /* What follows "key:" (or "- "): on the same line, or in the lines below it. */
    function value(rest, indent) {
      const text = rest.replace(/^#.*$/, "").trim();
      if (!text) {
        i++;
        skip();
        if (i < lines.length && indentOf(lines[i]) === indent && /^-( |$)/.test(lines[i].slice(indent))) {
          return sequence(indent);
        }
        return emptyOr(node(indent + 1));
      }
      return inline(text, indent, true);
    }

    function sequence(indent) {
      enter();
      const result = [];
      let size = 1;
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
          result.push(emptyOr(node(indent + 1)));
        } else if (!/^[&!]/.test(item) && (KEY.test(item) || item === "-" || item.startsWith("- "))) {
          lines[i] = " ".repeat(column) + item;  // the item's first line, as if on its own line
          result.push(item.startsWith("-") && !KEY.test(item) ? sequence(column) : mapping(column));
        } else {
          result.push(inline(item, indent));
        }
        size += sizeOf(result[result.length - 1]);
      }
      return leave(sized(result, size));
    }

    /* A scalar starting on line i, possibly wrapped over the following, more indented lines. */
    function scalarLines(first, indent, raw = false) {
      if (first.startsWith('"')) return doubleQuoted(first);
      if (first.startsWith("'")) return singleQuoted(first);
      let textValue = first.replace(/\s+#.*$/, "");
      i++;
      while (i < lines.length && indentOf(lines[i]) > indent && !/^\s*#/.test(lines[i])) {
        const line = lines[i].trim();
        textValue += line ? (textValue.endsWith("\n") ? "" : " ") + line.replace(/\s+#.*$/, "") : "\n";
        i++;
      }
      return raw ? textValue.trim() : typed(textValue);
    }

    /* How many "\\" end the text (counted from the end: a regular expression scans it all). */
    function trailingBackslashes(text) {
      let k = text.length;
      while (k > 0 && text[k - 1] === "\\") k--;
      return text.length - k;
    }

    /* A quoted scalar's lines up to its closing quote, folded as YAML folds them: a line break is a
       space, each empty line a newline. ``closed`` tells whether the text so far ends the scalar. */
    function quotedLines(first, closed, what) {
      const parts = [first];
      const quote = first.trimStart()[0];
      // only a line holding the quote can close the scalar: the whole text is tested again only then
      // (testing it after every line took 9 s for a CSV description of 6,000 lines)
      while (!closed(parts.join("\n"))) {
        do {
          i++;
          if (i >= lines.length) fail(`a ${what} string that never ends`);
          parts.push(lines[i].trim());
        } while (!parts[parts.length - 1].includes(quote));
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
        const escapedBreak = trailingBackslashes(out) % 2 === 1;  // "\" ending a double-quoted line: no space
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
      return decodeDouble(quotedLines(first, closed, "double-quoted"));
    }

    /* A double-quoted scalar's text (between the quotes, folded) with its escapes read. */
    function decodeDouble(text) {
      const folded = text
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

    /* A flow collection from line i, over as many lines as it takes ([a, {b: c}, "d"]); line breaks
       inside it are spaces. Nothing but a comment may follow it on its last line. */
    function flow(first) {
      let text = first;
      let end = closing(text);
      const start = i;
      while (end < 0) {
        i++;
        if (i >= lines.length) {
          i = start;
          fail("a flow collection that never ends");
        }
        text += " " + lines[i].trim();
        end = closing(text);
      }
      if (!/^\s*(#.*)?$/.test(text.slice(end))) fail("text after a flow collection");
      let p = 0;
      const source = text.slice(0, end);
      const space = () => {
        while (p < source.length && /\s/.test(source[p])) p++;
      };
      const expect = (what) => {
        space();
        if (!what.includes(source[p])) fail(`a flow collection that is not well formed (expected ${what.split("").join(" or ")})`);
        return source[p++];
      };
      function item(inSequence) {
        space();
        const props = properties(source.slice(p));
        p = source.length - props.rest.length;
        if (props.rest.startsWith("#")) fail("a comment inside a flow collection");
        const aliased = /^\*([^\s,[\]{}]+)/.exec(props.rest);
        if (aliased) {
          if (props.anchor !== null || props.tag !== null) fail("an anchor or tag on an alias");
          p += aliased[0].length;
          return alias(aliased[1]);
        }
        return withProperties(props, (raw) => {
          const c = source[p];
          if (c === "[") {
            enter();
            p++;
            const out = [];
            let size = 1;
            space();
            if (source[p] === "]") return p++, leave(sized(out, size));
            for (;;) {
              out.push(item(true));
              size += sizeOf(out[out.length - 1]);
              space();
              if (source[p] === ":") fail("a key inside a flow sequence");
              if (expect(",]") === "]") return leave(sized(out, size));
              space();
              if (source[p] === "]") return p++, leave(sized(out, size));
            }
          }
          if (c === "{") {
            enter();
            p++;
            const out = {};
            const merges = [];
            let size = 1;
            space();
            if (source[p] === "}") return p++, leave(sized(out, size));
            for (;;) {
              space();
              const quotedKey = source[p] === '"' || source[p] === "'";
              const key = item(false);
              space();
              let entry = null;
              if (source[p] === ":") {
                p++;
                space();
                if (",}".includes(source[p])) written++;  // an empty value: a null scalar
                else entry = item(false);
              }
              if (key === "<<" && !quotedKey) merges.push(entry);
              else out[typeof key === "string" ? key : JSON.stringify(key)] = entry;
              size += sizeOf(key) + sizeOf(entry);
              if (expect(",}") === "}") return leave(sized(merged(out, merges), size));
              space();
              if (source[p] === "}") return p++, leave(sized(merged(out, merges), size));
            }
          }
          if (c === '"') {
            const quoted = /^"(?:[^"\\]|\\.)*"/.exec(source.slice(p));
            if (!quoted) fail("a double-quoted string that never ends");
            p += quoted[0].length;
            return decodeDouble(quoted[0].slice(1, -1));
          }
          if (c === "'") {
            const quoted = /^'(?:[^']|'')*'/.exec(source.slice(p));
            if (!quoted) fail("a single-quoted string that never ends");
            p += quoted[0].length;
            return quoted[0].slice(1, -1).replace(/''/g, "'");
          }
          // a plain scalar ends at , [ ] { } or at ": " (and ":" before the end of an entry)
          const plain = (inSequence ? /^(?:[^,[\]{}:]|:(?=[^\s,[\]{}]))*/ : /^(?:[^,[\]{}:]|:(?=[^\s,[\]{}]))*/)
            .exec(source.slice(p))[0];
          if (!plain.trim()) fail("an empty entry in a flow collection");
          p += plain.length;
          return raw ? plain.trim() : typed(plain);
        });
      }
      const result = item(false);
      space();
      if (p !== source.length) fail("a flow collection that is not well formed");
      i++;  // after its last line (errors above name that line)
      return result;
    }

    /* Where the flow collection starting text ends (after its last bracket), or -1 if it goes on. */
    function closing(text) {
      let depth = 0;
      for (let k = 0; k < text.length; k++) {
        const c = text[k];
        if (c === '"') {
          const quoted = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(k));
          if (!quoted) return -1;
          k += quoted[0].length - 1;
        } else if (c === "'") {
          const quoted = /^'(?:[^']|'')*'/.exec(text.slice(k));
          if (!quoted) return -1;
          k += quoted[0].length - 1;
        } else if (c === "[" || c === "{") {
          depth++;
        } else if (c === "]" || c === "}") {
          depth--;
          if (depth === 0) return k + 1;
        } else if (c === "#" && /\s/.test(text[k - 1] || "")) {
          return -1;  // a comment inside: the rest of the line is not the collection's
        }
      }
      return -1;
    }

    function typed(plain) {
      const textValue = plain.trim();
      if (/^(null|Null|NULL|~|)$/.test(textValue)) return null;
      if (/^(true|True|TRUE)$/.test(textValue)) return true;
      if (/^(false|False|FALSE)$/.test(textValue)) return false;
      if (/^[-+]?(0|[1-9]\d*)$/.test(textValue)) return Number(textValue);
      if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(textValue)) return Number(textValue);
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
    const size = sizeOf(result);
    if (size > Math.max(MIN_BUDGET, MAX_EXPANSION * written)) {
      const error = new Error(`aliases expand ${written.toLocaleString("en-US")} written nodes to ` +
        `${size.toLocaleString("en-US")}, more than ${MAX_EXPANSION} times as many`);
      error.bound = true;
      throw error;
    }
    return result;
  }

  return {parse, MAX_DEPTH};
})();
