import stringWidth from 'string-width';

/**
 * How wide each row is that Ink wrote, and where the cursor is: the little a resize needs to know
 * to find the top of Ink's live region after the terminal re-wrapped it. Only what Ink emits is
 * understood (text, CR/LF, relative cursor moves, erase in line and below); other sequences (SGR,
 * OSC links, private modes) move nothing.
 */
export class TerminalRows {
  /** Visible width of each remembered row; the cursor is on row `y`, column `x`. */
  private rows: number[] = [0];
  private y = 0;
  private x = 0;

  /**
   * `columns`: the screen's width now; a row holds no more (the caller turns autowrap off when
   * text goes past it). True when some text did: it needs autowrap off to stay on its row.
   */
  write(data: string, columns = Number.POSITIVE_INFINITY): boolean {
    let pastEdge = false;
    for (const match of data.matchAll(token)) {
      const [text, csiParams, csiFinal] = [match[0], match[1], match[2]];
      if (csiFinal !== undefined) this.csi(csiParams ?? '', csiFinal);
      else if (text === '\n') this.lineFeed();
      else if (text === '\r') this.x = 0;
      else if (text === '\b') this.x = Math.max(0, this.x - 1);
      else if (text === '\t') this.x = (Math.floor(this.x / 8) + 1) * 8;
      else if (!text.startsWith('\u001B') && !/^[\u0000-\u001F\u007F]/.test(text)) {
        const end = this.x + (printableAscii.test(text) ? text.length : stringWidth(text));
        pastEdge ||= end > columns;
        this.x = Math.min(columns, end);
        this.rows[this.y] = Math.max(this.rows[this.y]!, this.x);
      }
    }
    return pastEdge;
  }

  /**
   * What `data` (cursor moves and erases, nothing printed) would do, run on a copy: the row it
   * reaches at the top. Lets a caller replace an erase with one that counts rows differently.
   */
  topReachedBy(data: string): number {
    const copy = new TerminalRows();
    copy.rows = [...this.rows];
    copy.y = this.y;
    copy.x = this.x;
    let top = copy.y;
    for (const match of data.matchAll(token)) {
      copy.write(match[0]);
      top = Math.min(top, copy.y);
    }
    return top;
  }

  /**
   * Rows between row `top` and the cursor once a terminal that re-wraps on resize has re-wrapped
   * them at `columns`: a row wider than the screen takes several, an empty one still takes one.
   */
  rowsAbove(top: number, columns: number): number {
    let count = 0;
    for (let row = top; row < this.y; row++) count += Math.max(1, Math.ceil(this.rows[row]! / columns));
    return count + Math.floor(this.x / columns);
  }

  /** The cursor went to row `top`, column 0, and everything from there down was erased. */
  erasedFrom(top: number): void {
    this.y = Math.max(0, Math.min(top, this.rows.length - 1));
    this.x = 0;
    this.rows.length = this.y + 1;
    this.rows[this.y] = 0;
  }

  get cursorRow(): number {
    return this.y;
  }

  private lineFeed() {
    // The tty turns LF into CR LF (ONLCR stays on in raw mode).
    this.x = 0;
    this.y++;
    if (this.y === this.rows.length) this.rows.push(0);
    // Only the live region and a screen above it matter; forget older rows.
    if (this.rows.length > maxRows) {
      const drop = this.rows.length - maxRows / 2;
      this.rows.splice(0, drop);
      this.y -= drop;
    }
  }

  private csi(params: string, final: string) {
    const n = Math.max(1, Number.parseInt(params, 10) || 1);
    const last = this.rows.length - 1;
    switch (final) {
      case 'A':
        this.y = Math.max(0, this.y - n);
        break;
      case 'B':
        this.y = Math.min(last, this.y + n);
        break;
      case 'C':
        this.x += n;
        break;
      case 'D':
        this.x = Math.max(0, this.x - n);
        break;
      case 'E':
        this.y = Math.min(last, this.y + n);
        this.x = 0;
        break;
      case 'F':
        this.y = Math.max(0, this.y - n);
        this.x = 0;
        break;
      case 'G':
        this.x = n - 1;
        break;
      case 'H':
      case 'f':
        // An absolute move is Ink's full clear (home, erase below); the rows above the screen's
        // top no longer belong to any frame, so the top row becomes the first one remembered.
        this.rows = [0];
        this.y = 0;
        this.x = Math.max(0, (Number.parseInt(params.split(';')[1] ?? '', 10) || 1) - 1);
        break;
      case 'J':
        if (params === '' || params === '0') {
          this.rows.length = this.y + 1;
          this.rows[this.y] = Math.min(this.rows[this.y]!, this.x);
        } else if (params === '2' || params === '3') {
          this.rows = this.rows.map(() => 0);
        }
        break;
      case 'K':
        if (params === '' || params === '0') this.rows[this.y] = Math.min(this.rows[this.y]!, this.x);
        else if (params === '2') this.rows[this.y] = 0;
        break;
      default:
        break;
    }
  }
}

const maxRows = 4000;
// Most of what Ink writes; string-width's grapheme walk is not needed for it.
const printableAscii = /^[\u0020-\u007E]*$/;

/**
 * One token: a CSI sequence (private-mode prefix, parameters, final byte), an OSC or other string
 * sequence, a two-byte escape, one control character, or a run of printable text.
 */
const token =
  // eslint-disable-next-line no-control-regex
  /\u001B\[[<=>?]?([\d;:]*)[ -/]*([@-~])|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|\u001B[P^_X][^\u001B]*(?:\u001B\\)?|\u001B[ -/]*[0-~]|[\u0000-\u001F\u007F]|[^\u0000-\u001F\u001B\u007F]+/gu;
