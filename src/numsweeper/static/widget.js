// The numsweeper board widget's front end: an anywidget ES module, no build step.
//
// Python (numsweeper/widget.py) owns the game.  This module draws the synced
// traits and sends actions: {type: "click" | "flag" | "chord", row, col} and
// {type: "undo" | "redo" | "new"}.  It sets two traits itself: "overlay" (the
// analysis toggle) and "view" (the window of a large board).

// Visible codes (numsweeper.HIDDEN and friends) and overlay codes (widget.py).
const HIDDEN = -1;
const FLAG = -2;
const MINE = -3;
const EXPLODED = -4;
const WRONG_FLAG = -5;
const CERTAIN_SAFE = 101;
const CERTAIN_MINE = 102;
const NO_OVERLAY = 255;

const DIGIT_COLORS = [
  "", "#0000ff", "#008000", "#ff0000", "#000080", "#800000", "#008080", "#000000", "#808080",
];
// Canvas colours of the codes, as numsweeper.render draws them.
const CODE_RGB = {
  [HIDDEN]: "#c0c0c0",
  [FLAG]: "#ff8c00",
  [MINE]: "#202020",
  [EXPLODED]: "#ff0000",
  [WRONG_FLAG]: "#ff00ff",
};
const REVEALED_RGB = "#e4e4e4";
const VIEW_SIDE = 512; // widget.VIEW_SIDE
const RING_RADIUS = 9; // pixels, whatever the zoom
const SYNC_DELAY = 120; // ms between the last pan or zoom and asking Python for the window

/** Bytes of a synced binary trait (a DataView in Jupyter), as a typed array. */
function bytesOf(value, Kind) {
  if (!value) return new Kind(0);
  if (value instanceof Kind) return value;
  if (ArrayBuffer.isView(value)) return new Kind(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Kind(value);
  return Kind.from(value);
}

/** Safe green through yellow to mine red, as numsweeper.plot's heat map. */
function heat(percent) {
  const stops = [[0x1a, 0x98, 0x50], [0xfe, 0xe0, 0x8b], [0xd7, 0x30, 0x27]];
  const t = Math.min(Math.max(percent / 100, 0), 1) * 2;
  const i = Math.min(Math.floor(t), 1);
  const f = t - i;
  const rgb = stops[i].map((v, k) => Math.round(v + (stops[i + 1][k] - v) * f));
  return `rgb(${rgb.join(",")})`;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function symbol(code) {
  if (code > 0) return String(code);
  if (code === FLAG || code === WRONG_FLAG) return "\u2691";
  if (code === MINE || code === EXPLODED) return "\u25cf";
  return "";
}

function cellClass(code) {
  if (code >= 0) return `nsw-cell nsw-open nsw-n${code}`;
  return {
    [HIDDEN]: "nsw-cell nsw-hidden",
    [FLAG]: "nsw-cell nsw-hidden nsw-flag",
    [MINE]: "nsw-cell nsw-open nsw-mine",
    [EXPLODED]: "nsw-cell nsw-open nsw-exploded",
    [WRONG_FLAG]: "nsw-cell nsw-open nsw-wrong",
  }[code];
}

function render({ model, el }) {
  const root = element("div", "nsw");
  const bar = element("div", "nsw-bar");
  const counter = element("span", "nsw-counter");
  const face = element("span", "nsw-state");
  const timer = element("span", "nsw-timer");
  const undo = element("button", "nsw-undo", "Undo");
  const redo = element("button", "nsw-redo", "Redo");
  const fresh = element("button", "nsw-new", "New game");
  const toggle = element("label", "nsw-toggle");
  const overlayBox = element("input");
  overlayBox.type = "checkbox";
  toggle.append(overlayBox, " Analysis");
  bar.append(counter, face, timer, undo, redo, fresh, toggle);
  const status = element("div", "nsw-status");
  const stage = element("div", "nsw-stage");
  root.append(bar, stage, status);
  el.append(root);

  const listeners = [];
  const on = (names, callback) => {
    for (const name of names.split(" ")) {
      model.on(`change:${name}`, callback);
      listeners.push([`change:${name}`, callback]);
    }
  };
  const act = (message) => model.send(message);

  undo.addEventListener("click", () => act({ type: "undo" }));
  redo.addEventListener("click", () => act({ type: "redo" }));
  fresh.addEventListener("click", () => act({ type: "new" }));
  overlayBox.addEventListener("change", () => {
    model.set("overlay", overlayBox.checked);
    model.save_changes();
  });

  // -- the bar and the status line --------------------------------------------------
  let clock = { base: 0, since: performance.now(), running: false };
  function drawBar() {
    const state = model.get("state");
    root.dataset.state = state;
    counter.textContent = `Mines left: ${model.get("mines_left").toLocaleString("en")}`;
    face.textContent = { IN_PROGRESS: "Playing", WON: "Won!", LOST: "Lost" }[state] || state;
    face.className = `nsw-state nsw-${state.toLowerCase()}`;
    undo.disabled = !model.get("can_undo");
    redo.disabled = !model.get("can_redo");
    overlayBox.checked = model.get("overlay");
    const parts = [model.get("message"), model.get("overlay") ? model.get("hint_text") : ""];
    status.textContent = parts.filter(Boolean).join(" \u00b7 ");
    status.classList.toggle("nsw-error", Boolean(model.get("message")));
  }
  function resetClock() {
    clock = { base: model.get("elapsed"), since: performance.now(), running: model.get("running") };
    tick();
  }
  function tick() {
    const seconds = clock.base + (clock.running ? (performance.now() - clock.since) / 1000 : 0);
    timer.textContent = `Time: ${Math.floor(seconds)} s`;
  }
  const ticking = setInterval(tick, 250);

  // -- small boards: one element per cell -------------------------------------------------
  function gridView() {
    const grid = element("div", "nsw-grid");
    stage.append(grid);
    let shape = "";
    let nodes = [];
    let shown = [];
    function build() {
      const rows = model.get("rows");
      const cols = model.get("cols");
      const size = Math.max(14, Math.min(24, Math.floor(720 / cols)));
      grid.style.setProperty("--nsw-cell", `${size}px`);
      grid.style.gridTemplateColumns = `repeat(${cols}, ${size}px)`;
      grid.replaceChildren();
      nodes = [];
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const node = element("div", "nsw-cell nsw-hidden");
          node.dataset.r = r;
          node.dataset.c = c;
          nodes.push(node);
        }
      }
      grid.append(...nodes);
      shown = new Array(nodes.length).fill("");
      shape = `${rows}x${cols}`;
    }
    function draw() {
      if (shape !== `${model.get("rows")}x${model.get("cols")}`) build();
      const codes = bytesOf(model.get("cells"), Int8Array);
      const overlay = model.get("overlay") ? bytesOf(model.get("overlay_codes"), Uint8Array) : [];
      const hint = model.get("hint");
      const hinted = hint.length === 2 ? hint[0] * model.get("cols") + hint[1] : -1;
      for (let i = 0; i < nodes.length && i < codes.length; i++) {
        const code = codes[i];
        const extra = i < overlay.length ? overlay[i] : NO_OVERLAY;
        const key = `${code}/${extra}/${i === hinted}`;
        if (shown[i] === key) continue;
        shown[i] = key;
        const node = nodes[i];
        node.className = cellClass(code);
        node.dataset.code = code;
        node.textContent = symbol(code);
        node.style.background = "";
        node.title = "";
        if (extra !== NO_OVERLAY) {
          node.dataset.overlay = extra;
          if (extra === CERTAIN_SAFE) {
            node.classList.add("nsw-sure-safe");
            node.title = "certainly safe";
          } else if (extra === CERTAIN_MINE) {
            node.classList.add("nsw-sure-mine");
            node.title = "certainly a mine";
          } else {
            node.style.background = heat(extra);
            node.title = `mine probability ${extra}%`;
          }
        } else {
          delete node.dataset.overlay;
        }
        if (i === hinted) node.classList.add("nsw-hint");
      }
    }
    function cellOf(event) {
      const node = event.target.closest(".nsw-cell");
      return node ? { row: Number(node.dataset.r), col: Number(node.dataset.c) } : null;
    }
    grid.addEventListener("click", (event) => {
      const cell = cellOf(event);
      if (cell) act({ type: "click", ...cell });
    });
    grid.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      const cell = cellOf(event);
      if (cell) act({ type: "flag", ...cell });
    });
    grid.addEventListener("auxclick", (event) => {
      const cell = cellOf(event);
      if (cell && event.button === 1) act({ type: "chord", ...cell });
    });
    on("cells overlay_codes overlay hint rows cols", draw);
    draw();
  }

  // -- large boards: a canvas showing a window, panned and zoomed -------------------------
  function canvasView() {
    const rows = model.get("rows");
    const cols = model.get("cols");
    const canvas = element("canvas", "nsw-canvas");
    const wide = cols >= rows;
    canvas.width = wide ? VIEW_SIDE : Math.max(64, Math.round((VIEW_SIDE * cols) / rows));
    canvas.height = wide ? Math.max(64, Math.round((VIEW_SIDE * rows) / cols)) : VIEW_SIDE;
    const zoomIn = element("button", "nsw-zoom-in", "+");
    const zoomOut = element("button", "nsw-zoom-out", "\u2212");
    const fit = element("button", "nsw-fit", "Fit");
    const about = element("span", "nsw-about");
    const tools = element("div", "nsw-tools");
    tools.append(zoomIn, zoomOut, fit, about);
    stage.append(tools, canvas);
    const context = canvas.getContext("2d");
    const scale = canvas.width / canvas.height; // width per height, in cells as in pixels
    let view = fitted();
    let image = null; // the decoded PNG of the last window sent as an image
    let pending = null;

    function fitted() {
      // The whole board, centred, at the canvas's aspect.
      const width = Math.max(cols, rows * scale);
      const height = width / scale;
      return { top: (rows - height) / 2, left: (cols - width) / 2, height, width };
    }
    function clamp(next) {
      const whole = fitted();
      const width = Math.min(Math.max(next.width, 4), whole.width);
      const height = width / scale;
      const limit = (start, size, total) =>
        size >= total ? (total - size) / 2 : Math.min(Math.max(start, 0), total - size);
      return {
        top: limit(next.top, height, rows),
        left: limit(next.left, width, cols),
        height,
        width,
      };
    }
    function sync() {
      clearTimeout(pending);
      pending = setTimeout(() => {
        const top = Math.max(0, view.top);
        const left = Math.max(0, view.left);
        const bottom = Math.min(rows, view.top + view.height);
        const right = Math.min(cols, view.left + view.width);
        model.set("view", [top, left, bottom - top, right - left]);
        model.save_changes();
      }, SYNC_DELAY);
    }
    function zoom(factor, x = canvas.width / 2, y = canvas.height / 2) {
      const cellX = view.left + (x / canvas.width) * view.width;
      const cellY = view.top + (y / canvas.height) * view.height;
      const width = view.width / factor;
      const height = width / scale;
      view = clamp({
        top: cellY - (y / canvas.height) * height,
        left: cellX - (x / canvas.width) * width,
        width,
        height,
      });
      draw();
      sync();
    }
    function sent() {
      const [top, left, height, width] = model.get("view_shape");
      return { top, left, height, width };
    }
    function toCanvas(row, col) {
      return [
        ((col - view.left) / view.width) * canvas.width,
        ((row - view.top) / view.height) * canvas.height,
      ];
    }
    function draw() {
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      const window = sent();
      const [x0, y0] = toCanvas(window.top, window.left);
      const [x1, y1] = toCanvas(window.top + window.height, window.left + window.width);
      const codes = bytesOf(model.get("cells"), Int8Array);
      context.imageSmoothingEnabled = false;
      if (codes.length === window.height * window.width && codes.length > 0) {
        const w = (x1 - x0) / window.width;
        const h = (y1 - y0) / window.height;
        context.font = `bold ${Math.floor(h * 0.7)}px Verdana, sans-serif`;
        context.textAlign = "center";
        context.textBaseline = "middle";
        for (let r = 0; r < window.height; r++) {
          for (let c = 0; c < window.width; c++) {
            const code = codes[r * window.width + c];
            const x = x0 + c * w;
            const y = y0 + r * h;
            context.fillStyle = code >= 0 ? REVEALED_RGB : CODE_RGB[code];
            context.fillRect(x, y, w, h);
            context.strokeStyle = "#8a8a8a";
            context.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
            if (h >= 9 && code !== HIDDEN && code !== 0) {
              context.fillStyle = code > 0 ? DIGIT_COLORS[code] : "#000000";
              context.fillText(symbol(code), x + w / 2, y + h / 2 + 1);
            }
          }
        }
        canvas.dataset.mode = "cells";
      } else if (image) {
        context.drawImage(image, x0, y0, x1 - x0, y1 - y0);
        canvas.dataset.mode = "image";
      }
      for (const [row, col, kind] of model.get("events")) {
        const [x, y] = toCanvas(row + 0.5, col + 0.5);
        context.lineWidth = 2;
        context.strokeStyle = kind === "exploded" ? "#ff0000" : "#1f4fff";
        context.beginPath();
        if (kind === "exploded") context.arc(x, y, RING_RADIUS, 0, 2 * Math.PI);
        else context.rect(x - RING_RADIUS, y - RING_RADIUS, 2 * RING_RADIUS, 2 * RING_RADIUS);
        context.stroke();
      }
      const f = Math.ceil(Math.max(window.height, window.width) / VIEW_SIDE);
      const shown = [
        `${rows.toLocaleString("en")}\u00d7${cols.toLocaleString("en")} board`,
        `rows ${window.top}\u2013${window.top + window.height - 1}`,
        `cols ${window.left}\u2013${window.left + window.width - 1}`,
      ];
      if (canvas.dataset.mode === "cells") shown.push("click to play");
      else shown.push(f > 1 ? `1 pixel = ${f}\u00d7${f} cells, zoom in to play` : "zoom in to play");
      about.textContent = shown.join(" \u00b7 ");
      canvas.dataset.view = [window.top, window.left, window.height, window.width].join(",");
    }
    async function decode() {
      const bytes = bytesOf(model.get("view_image"), Uint8Array);
      if (bytes.length === 0) {
        image = null;
      } else {
        const blob = new Blob([bytes], { type: "image/png" });
        image = await createImageBitmap(blob);
      }
      draw();
    }

    let drag = null;
    canvas.addEventListener("mousedown", (event) => {
      drag = { x: event.offsetX, y: event.offsetY, view, moved: false };
    });
    canvas.addEventListener("mousemove", (event) => {
      if (!drag || !(event.buttons & 1)) return;
      const dx = event.offsetX - drag.x;
      const dy = event.offsetY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      view = clamp({
        ...drag.view,
        top: drag.view.top - (dy / canvas.height) * drag.view.height,
        left: drag.view.left - (dx / canvas.width) * drag.view.width,
      });
      draw();
    });
    canvas.addEventListener("mouseup", (event) => {
      if (drag && drag.moved) sync();
      else if (event.button === 0) play("click", event);
      drag = null;
    });
    canvas.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      play("flag", event);
    });
    canvas.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        zoom(event.deltaY < 0 ? 1.25 : 0.8, event.offsetX, event.offsetY);
      },
      { passive: false },
    );
    function play(kind, event) {
      const row = Math.floor(view.top + (event.offsetY / canvas.height) * view.height);
      const col = Math.floor(view.left + (event.offsetX / canvas.width) * view.width);
      if (canvas.dataset.mode === "cells") {
        const window = sent();
        const inside =
          row >= window.top && row < window.top + window.height &&
          col >= window.left && col < window.left + window.width;
        if (inside && row >= 0 && col >= 0 && row < rows && col < cols) act({ type: kind, row, col });
      } else if (kind === "click") {
        zoom(2, event.offsetX, event.offsetY);
      }
    }
    zoomIn.addEventListener("click", () => zoom(2));
    zoomOut.addEventListener("click", () => zoom(0.5));
    fit.addEventListener("click", () => {
      view = fitted();
      draw();
      sync();
    });
    on("view_image", decode);
    on("cells view_shape events", draw);
    decode();
  }

  on("state mines_left can_undo can_redo message hint_text overlay", drawBar);
  on("elapsed running", resetClock);
  drawBar();
  resetClock();
  if (model.get("large")) canvasView();
  else gridView();

  return () => {
    clearInterval(ticking);
    for (const [name, callback] of listeners) model.off(name, callback);
  };
}

export default { render };
