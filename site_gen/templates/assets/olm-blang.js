/* Versions and skipRanges exactly as blang/semver v4 reads them (OLM's and opm's library), written once:
   the operator checker's page uses them where OLM tests a skipRange against an installed version the
   channel does not list, and the build asks them through site_gen/olm/blang.py (readAll, one call per
   catalog), so every message here is published text (channel errors, bundle version errors, gate
   errors) and must not change. Numbers are BigInts, as blang's are uint64. */
"use strict";

const SiteGenBlang = (() => {
  class SemverError extends Error {}
  const NUMBERS = /^[0-9]+$/;
  const ALPHANUM = /^[0-9A-Za-z-]+$/;
  const UINT64_MAX = (1n << 64n) - 1n;

  const ESCAPES = {"\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
    "\v": "\\v", '"': '\\"', "\\": "\\\\"};
  const UNPRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
  const hex = (code, width) => code.toString(16).padStart(width, "0");
  // the characters the build's messages have always trimmed as white space (Python's str.strip())
  const SPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
  const EDGE_SPACE = new RegExp(`^${SPACE}+|${SPACE}+$`, "g");
  const strip = (text) => text.replace(EDGE_SPACE, "");

  /* A text quoted as the build's messages have always quoted a token: Python's repr of a str. */
  function pyRepr(text) {
    const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
    let out = "";
    for (const char of text) {
      const code = char.codePointAt(0);
      if (char === quote || char === "\\") out += "\\" + char;
      else if (char === "\t") out += "\\t";
      else if (char === "\n") out += "\\n";
      else if (char === "\r") out += "\\r";
      else if (code < 0x20 || code === 0x7f) out += "\\x" + hex(code, 2);
      else if (code < 0x7f || !UNPRINTABLE.test(char)) out += char;
      else if (code <= 0xff) out += "\\x" + hex(code, 2);
      else if (code <= 0xffff) out += "\\u" + hex(code, 4);
      else out += "\\U" + hex(code, 8);
    }
    return quote + out + quote;
  }

  /* Go's %q, as blang's messages quote the offending text. */
  function goQuote(text) {
    let out = "";
    for (const char of text) {
      const code = char.codePointAt(0);
      if (char in ESCAPES) out += ESCAPES[char];
      else if (char === " " || !UNPRINTABLE.test(char)) out += char;
      else if (code < 0x80) out += "\\x" + hex(code, 2);
      else if (code <= 0xFFFF) out += "\\u" + hex(code, 4);
      else out += "\\U" + hex(code, 8);
    }
    return `"${out}"`;
  }

  function number(text, what) {
    // Go's containsOnly passes "", which strconv.ParseUint then refuses.
    if (text && !NUMBERS.test(text)) {
      throw new SemverError(`Invalid character(s) found in ${what.toLowerCase()} number ${goQuote(text)}`);
    }
    if (text.length > 1 && text[0] === "0") {
      throw new SemverError(`${what} number must not contain leading zeroes ${goQuote(text)}`);
    }
    if (!text) throw new SemverError('strconv.ParseUint: parsing "": invalid syntax');
    const value = BigInt(text);
    if (value > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(text)}: value out of range`);
    return value;
  }

  function prereleasePart(text) {
    if (!text) throw new SemverError("Prerelease is empty");
    if (NUMBERS.test(text)) {
      if (text.length > 1 && text[0] === "0") {
        throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${goQuote(text)}`);
      }
      const value = BigInt(text);
      if (value > UINT64_MAX) throw new SemverError(`strconv.ParseUint: parsing ${goQuote(text)}: value out of range`);
      return value;
    }
    if (ALPHANUM.test(text)) return text;
    throw new SemverError(`Invalid character(s) found in prerelease ${goQuote(text)}`);
  }

  /* text.split(".", 2) as Python splits: at most three parts, the last keeps its dots. */
  function splitThree(text) {
    const first = text.indexOf(".");
    if (first < 0) return [text];
    const second = text.indexOf(".", first + 1);
    if (second < 0) return [text.slice(0, first), text.slice(first + 1)];
    return [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
  }

  function partition(text, separator) {
    const at = text.indexOf(separator);
    return [text.slice(0, at), text.slice(at + separator.length)];
  }

  /* blang Parse: strict MAJOR.MINOR.PATCH[-PRE][+BUILD]. */
  function parse(text) {
    if (!text) throw new SemverError("Version string empty");
    const parts = splitThree(text);
    if (parts.length !== 3) throw new SemverError("No Major.Minor.Patch elements found");
    const major = number(parts[0], "Major"), minor = number(parts[1], "Minor");
    let rest = parts[2], build = [], pre = [];
    if (rest.includes("+")) {
      let buildText;
      [rest, buildText] = partition(rest, "+");
      build = buildText.split(".");
    }
    if (rest.includes("-")) {
      let preText;
      [rest, preText] = partition(rest, "-");
      pre = preText.split(".");
    }
    const patch = number(rest, "Patch");
    const prerelease = pre.map(prereleasePart);
    for (const part of build) {
      if (!part) throw new SemverError("Build meta data is empty");
      if (!ALPHANUM.test(part)) throw new SemverError(`Invalid character(s) found in build meta data ${goQuote(part)}`);
    }
    return {major, minor, patch, pre: prerelease, build};
  }

  /* blang ParseTolerant: spaces and a leading "v" trimmed, leading zeroes dropped, "4.8" read as 4.8.0. */
  function parseTolerant(input) {
    const parts = splitThree(strip(input).replace(/^v/, "")).map((part) => {
      if (Array.from(part).length <= 1) return part;
      let stripped = part.replace(/^0+/, "");
      if (!stripped || !/[0-9]/.test(stripped[0])) stripped = "0" + stripped;
      return stripped;
    });
    if (parts.length < 3) {
      if (/[+-]/.test(parts[parts.length - 1])) throw new SemverError("Short version cannot contain PreRelease/Build meta data");
      while (parts.length < 3) parts.push("0");
    }
    return parse(parts.join("."));
  }

  /* A parsed version as blang prints it. */
  const versionText = (v) => `${v.major}.${v.minor}.${v.patch}` + (v.pre.length ? `-${v.pre.join(".")}` : "") +
    (v.build.length ? `+${v.build.join(".")}` : "");

  function comparePart(a, b) {
    const numberA = typeof a === "bigint", numberB = typeof b === "bigint";
    if (numberA && numberB) return a > b ? 1 : a < b ? -1 : 0;
    if (numberA) return -1;
    if (numberB) return 1;
    return a > b ? 1 : a < b ? -1 : 0;  // ASCII only (parse checks it): the same as Go's byte order
  }

  /* blang Version.Compare: -1, 0 or 1; build metadata ignored. */
  function compare(a, b) {
    for (const [x, y] of [[a.major, b.major], [a.minor, b.minor], [a.patch, b.patch]]) {
      if (x !== y) return x > y ? 1 : -1;
    }
    if (!a.pre.length && !b.pre.length) return 0;
    if (!a.pre.length) return 1;
    if (!b.pre.length) return -1;
    for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
      const result = comparePart(a.pre[i], b.pre[i]);
      if (result) return result;
    }
    return a.pre.length > b.pre.length ? 1 : a.pre.length < b.pre.length ? -1 : 0;
  }

  const COMPARATORS = {
    "": (c) => c === 0, "=": (c) => c === 0, "==": (c) => c === 0,
    "!": (c) => c !== 0, "!=": (c) => c !== 0,
    ">": (c) => c > 0, ">=": (c) => c >= 0,
    "<": (c) => c < 0, "<=": (c) => c <= 0,
  };

  /* Split on spaces, except one after >, < or =; a one-character token is dropped, as blang does. */
  function splitAndTrim(text) {
    const chars = Array.from(text);
    const result = [];
    let last = 0, lastChar = "";
    chars.forEach((char, index) => {
      if (char === " " && ![">", "<", "="].includes(lastChar)) {
        if (last < index - 1) result.push(chars.slice(last, index).join(""));
        last = index + 1;
      } else if (char !== " ") {
        lastChar = char;
      }
    });
    if (last < chars.length - 1) result.push(chars.slice(last).join(""));
    return result.map((token) => token.replaceAll(" ", ""));
  }

  function splitOr(tokens) {
    const groups = [];
    let last = 0;
    tokens.forEach((token, index) => {
      if (token === "||") {
        if (index === 0) throw new SemverError("First element in range is '||'");
        groups.push(tokens.slice(last, index));
        last = index + 1;
      }
    });
    if (last === tokens.length) throw new SemverError("Last element in range is '||'");
    groups.push(tokens.slice(last));
    return groups;
  }

  function splitComparator(token) {
    const chars = Array.from(token);
    const index = chars.findIndex((char) => /\p{Nd}/u.test(char));
    if (index < 0) throw new SemverError(`Could not get version from string: ${pyRepr(token)}`);
    return [strip(chars.slice(0, index).join("")), chars.slice(index).join("")];
  }

  /* A decimal digit's value, any script's: Unicode keeps each script's digits 0-9 in a row of ten. */
  function digitValue(char) {
    let code = char.codePointAt(0), before = 0;
    while (/\p{Nd}/u.test(String.fromCodePoint(code - 1))) {
      code--;
      before++;
    }
    return String(before % 10);
  }

  /* The number the build has always read here (Python's int(): any script's digits, a sign, spaces,
     underscores between digits); "" when it is none, as blang ignores that error. */
  function increment(version, position) {
    const parts = version.split(".");
    const part = parts[position];
    if (part === undefined || !new RegExp(`^${SPACE}*[+-]?\\p{Nd}(?:_?\\p{Nd})*${SPACE}*$`, "u").test(part)) return "";
    const digits = Array.from(strip(part).replaceAll("_", "")).map((char) => (/\p{Nd}/u.test(char) ? digitValue(char) : char));
    parts[position] = String(BigInt(digits.join("")) + 1n);
    for (let later = position + 1; later < 3; later++) if (later < parts.length) parts[later] = "0";
    return parts.join(".");
  }

  function expandWildcard(token) {
    if (!token.includes("x")) return [token];
    const [operator, version] = splitComparator(token);
    const parts = version.split(".");
    const wildcard = parts[parts.length - 1] === "x" ? ({2: "minor", 3: "patch"})[parts.length] ?? null : null;
    let flat = version.replace(".x.x", ".x").replace(".x", ".0");
    if (flat.split(".").length === 2) flat += ".0";
    let before = [], resultOperator, bump = false;
    if (operator === ">") [resultOperator, bump] = [">=", true];
    else if (operator === ">=") resultOperator = ">=";
    else if (operator === "<") resultOperator = "<";
    else if (operator === "<=") [resultOperator, bump] = ["<", true];
    else if (["", "=", "=="].includes(operator)) [before, resultOperator, bump] = [[">=" + flat], "<", true];
    else if (["!=", "!"].includes(operator)) [before, resultOperator, bump] = [["<" + flat], ">=", true];
    else return [flat];
    let result = flat;
    if (bump) result = wildcard === "patch" ? increment(flat, 1) : wildcard === "minor" ? increment(flat, 0) : "";
    return [...before, resultOperator + result];
  }

  /* blang ParseRange: a function of a parsed version; throws SemverError for what blang rejects. */
  function parseRange(text) {
    const alternatives = splitOr(splitAndTrim(text)).map((group) => {
      const expanded = group.flatMap(expandWildcard);
      if (!expanded.length) throw new SemverError("empty alternative between '||'");
      return expanded.map((token) => {
        const [operator, versionText] = splitComparator(token);
        if (!Object.hasOwn(COMPARATORS, operator)) {
          throw new SemverError(`Could not parse comparator ${pyRepr(operator)} in ${pyRepr(token)}`);
        }
        return [COMPARATORS[operator], parse(versionText)];
      });
    });
    return (version) => alternatives.some((terms) => terms.every(([test, bound]) => test(compare(version, bound))));
  }

  /* Every range against every version, in one call (for callers outside a page, through
     site_gen/js_rules): per range null when blang rejects it, else whether it holds each version
     (null for a version blang rejects). */
  function matchAll(ranges, versions) {
    const orNull = (read, text) => {
      try {
        return read(text);
      } catch (error) {
        if (error instanceof SemverError) return null;
        throw error;
      }
    };
    const parsed = versions.map((text) => orNull(parse, text));
    return ranges.map((text) => {
      const test = orNull(parseRange, text);
      return test === null ? null : parsed.map((version) => (version === null ? null : test(version)));
    });
  }

  /* The build's questions about a catalog, in one call (site_gen/olm/blang.py). Each version (read
     strictly, or as ParseTolerant with `tolerant`) -> {error: blang's message} or {rank, major, minor,
     patch, pre, build} with the numbers as decimal text and rank its place in blang's order among these
     versions (equal versions share one). Each range question [range, version indexes] -> {error} or
     the indexes among those whose version the range holds: a range is parsed once, and tested only
     against the versions it is asked about (the build asks for the versions of the range's channels). */
  function readAll(versions, questions, tolerant = false) {
    const read = tolerant ? parseTolerant : parse;
    const parsed = versions.map((text) => {
      try {
        return read(text);
      } catch (error) {
        if (error instanceof SemverError) return error;
        throw error;
      }
    });
    const valid = (index) => !(parsed[index] instanceof SemverError);
    const order = parsed.map((_, index) => index).filter(valid);
    order.sort((a, b) => compare(parsed[a], parsed[b]));
    const ranks = new Map();
    order.forEach((index, position) => {
      const same = position > 0 && compare(parsed[order[position - 1]], parsed[index]) === 0;
      ranks.set(index, same ? ranks.get(order[position - 1]) : position);
    });
    const tests = new Map();
    const answers = questions.map(([text, indexes]) => {
      if (!tests.has(text)) {
        try {
          tests.set(text, parseRange(text));
        } catch (error) {
          if (!(error instanceof SemverError)) throw error;
          tests.set(text, error);
        }
      }
      const test = tests.get(text);
      if (test instanceof SemverError) return {error: test.message};
      return indexes.filter((index) => valid(index) && test(parsed[index]));
    });
    return {
      versions: parsed.map((version, index) => (!valid(index) ? {error: version.message} : {
        rank: ranks.get(index), major: String(version.major), minor: String(version.minor),
        patch: String(version.patch), pre: version.pre.map(String), build: version.build,
      })),
      ranges: answers,
    };
  }

  return {SemverError, parse, parseTolerant, versionText, parseRange, matchAll, readAll, goQuote};
})();
