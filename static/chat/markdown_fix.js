// SillyTavern's "Auto-fix Markdown" (on by default there) as it shows a message: its
// messageFormatting runs fixMarkdown(text, forDisplay) on every line it draws, stored or
// streaming. Two halves: no space right inside a `*` / `_` pair ("* waves *" is "*waves*"; a
// reply was stored so already, personalab/lib/reply_shape.py, but a player's line or an
// imported chat was not), then, on each line with an odd count of `*` or of `"`, one more at its
// end (so "*She lifts the la" reads in italics while it streams). The text is data: walked
// once, with no pattern of its own; the stored text (data-raw, Copy) is unchanged.

const MARK = /[*_]/g;
// fixMarkdown's spaces: no newline, so a pair's spaces are cut on one line only.
const SPACE = /[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]/;

const isMark = (char) => char === "*" || char === "_";
const isSpace = (char) => char !== undefined && SPACE.test(char);

// Inside one pair: the spaces right after a mark or right before one go.
function pairSpacesRemoved(text) {
  let out = "";
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    let end = isMark(char) ? index + 1 : index;
    while (end < text.length && isSpace(text[end])) end += 1;
    if (isMark(char)) {
      out += char;
    } else if (end > index && end < text.length && isMark(text[end])) {
      out += text[end];
      end += 1;
    } else {
      end = Math.max(end, index + 1);
      out += text.slice(index, end);
    }
    index = end;
  }
  return out;
}

// Each pair as its lazy `([*_]{1,2})([\s\S]*?)\1` finds them: a double mark first, then a single
// one; a mark with no closing one after a place is not looked for again (linear).
function pairSpacesFixed(text) {
  const absent = new Map();
  let out = "";
  let index = 0;
  let start = 0;
  while (index < text.length) {
    if (!isMark(text[index])) {
      MARK.lastIndex = index;
      const next = MARK.exec(text);
      if (!next) break;
      index = next.index;
    }
    const marks = isMark(text[index + 1]) ? [text.slice(index, index + 2), text[index]]
      : [text[index]];
    let found = -1;
    for (const mark of marks) {
      const after = index + mark.length;
      if ((absent.get(mark) ?? text.length + 1) <= after) continue;
      found = text.indexOf(mark, after);
      if (found < 0) {
        absent.set(mark, after);
        continue;
      }
      found += mark.length;
      break;
    }
    if (found < 0) {
      index += 1;
      continue;
    }
    out += text.slice(start, index) + pairSpacesRemoved(text.slice(index, found));
    index = start = found;
  }
  return out + text.slice(start);
}

// Overlapping, as SillyTavern's countOccurrences: "````" holds two ```.
function counted(text, mark) {
  let count = 0;
  for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + 1)) count += 1;
  return count;
}

// As there, each check starts from the line as it was: a line odd in both `*` and `"` ends
// with one more `"` only.
function oddMarksClosed(text) {
  return text.split("\n").map((line) => {
    let shown = line;
    for (const char of ["*", '"']) {
      if (counted(line, char) % 2 === 1) shown = line.trimEnd() + char;
    }
    return shown;
  }).join("\n");
}

export function markdownFixedShown(text) {
  return oddMarksClosed(pairSpacesFixed(text));
}

// While a reply streams, SillyTavern first balances the whole text so far
// (onProgressStreaming): an odd count of `*`, of `"` or of ``` gets one more at its end, the
// fence on a line of its own, so an open code block is drawn as one as it grows. Counted as
// there: "````" holds two ```.
export function streamingBalanced(text) {
  let balanced = text;
  for (const mark of ["*", '"', "```"]) {
    if (counted(balanced, mark) % 2 === 1) {
      balanced = balanced.trimEnd() + (mark.length > 1 ? "\n" : "") + mark;
    }
  }
  return balanced;
}
