// numsweeper's page: a single game through the HTTP API, a race room over a WebSocket.
// Plain browser JavaScript, no build step.  The server decides everything; this page
// only shows its snapshots and sends clicks.
"use strict";

(function () {
  const HIDDEN = -1, FLAG = -2, MINE = -3, EXPLODED = -4, WRONG_FLAG = -5;
  const GAME_KEY = "numsweeper.game";
  const ROOM_KEY = "numsweeper.room.";
  const $ = (id) => document.getElementById(id);

  const ui = {
    board: $("board"), status: $("status"), minesLeft: $("mines-left"), timer: $("timer"),
    preset: $("preset"), name: $("name"), newGame: $("new-game"), raceButton: $("race-button"),
    race: $("race"), raceState: $("race-state"), raceLink: $("race-link"), joinForm: $("join-form"),
    joinName: $("join-name"), startButton: $("start-button"), players: $("players"),
    leaders: document.querySelector("#leaderboard tbody"), leadersPreset: $("leaders-preset"),
  };

  const state = {
    mode: "solo",        // "solo" or "race"
    game: null,          // solo: {id, token}
    room: null,          // race: {id, token, player} (token null for a spectator)
    view: null,          // race: the room's latest view
    snapshot: null,      // what the board shows: {cells, state, mines_left, elapsed}
    receivedAt: 0,       // performance.now() when the snapshot arrived
    shape: [0, 0],
    focus: [0, 0],
    privateFlags: new Set(),  // race: "r,c" of the flags only this page knows
    socket: null,
    queue: Promise.resolve(),  // solo moves are sent one after another, in click order
  };

  // -- talking to the server ---------------------------------------------------------

  async function api(method, path, body, token) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) {
      const error = new Error(data.error || response.statusText);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  function say(text) { ui.status.textContent = text; }

  function playerName() { return ui.name.value.trim() || undefined; }

  // -- the board -------------------------------------------------------------------

  function buildBoard(rows, cols) {
    state.shape = [rows, cols];
    state.focus = [0, 0];
    ui.board.replaceChildren();
    ui.board.style.setProperty("--cols", cols);
    for (let r = 0; r < rows; r++) {
      const row = document.createElement("div");
      row.setAttribute("role", "row");
      for (let c = 0; c < cols; c++) {
        const cell = document.createElement("button");
        cell.type = "button";
        cell.className = "cell";
        cell.setAttribute("role", "gridcell");
        cell.dataset.r = r;
        cell.dataset.c = c;
        cell.tabIndex = r === 0 && c === 0 ? 0 : -1;
        row.appendChild(cell);
      }
      ui.board.appendChild(row);
    }
    fitBoard();
  }

  // Cells as large as fit the window (16..32 px), so that expert needs no scrolling.
  function fitBoard() {
    const [rows, cols] = state.shape;
    if (!rows) return;
    const top = ui.board.getBoundingClientRect().top + window.scrollY;
    const wide = window.innerWidth >= 900 ? window.innerWidth - 330 : window.innerWidth - 40;
    const tall = window.innerHeight - top - 70;
    const size = Math.max(16, Math.min(32, Math.floor(Math.min(wide / cols, tall / rows))));
    document.documentElement.style.setProperty("--size", size + "px");
  }

  function cellAt(r, c) { return ui.board.children[r] && ui.board.children[r].children[c]; }

  function describe(code, marked) {
    if (marked) return "marked mine";
    if (code === HIDDEN) return "hidden";
    if (code === FLAG) return "flagged";
    if (code === MINE) return "mine";
    if (code === EXPLODED) return "exploded mine";
    if (code === WRONG_FLAG) return "wrong flag";
    return code === 0 ? "empty" : code + (code === 1 ? " mine" : " mines") + " around";
  }

  function render() {
    const snap = state.snapshot;
    if (!snap) return;
    const rows = snap.cells.length, cols = snap.cells[0].length;
    if (rows !== state.shape[0] || cols !== state.shape[1]) buildBoard(rows, cols);
    const race = state.mode === "race" && state.view;
    const marked = new Set(race ? state.view.marked.map((m) => m.row + "," + m.col) : []);
    const mines = new Set(race && state.view.mine_positions
      ? state.view.mine_positions.map(([r, c]) => r + "," + c) : []);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const key = r + "," + c;
        let code = snap.cells[r][c];
        const isMarked = marked.has(key);
        let cls = "cell", text = "";
        if (isMarked) { cls += " marked"; text = "\u2739"; }
        else if (code === HIDDEN && mines.has(key)) { cls += " mine"; text = "\u2739"; code = MINE; }
        else if (code === HIDDEN && race && state.privateFlags.has(key)) { cls += " flag"; text = "\u2691"; code = FLAG; }
        else if (code === HIDDEN) cls += " hidden";
        else if (code === FLAG) { cls += " flag"; text = "\u2691"; }
        else if (code === MINE) { cls += " mine"; text = "\u2739"; }
        else if (code === EXPLODED) { cls += " exploded"; text = "\u2739"; }
        else if (code === WRONG_FLAG) { cls += " wrong"; text = "\u2715"; }
        else { cls += " open n" + code; text = code ? String(code) : ""; }
        const cell = cellAt(r, c);
        if (cell.className !== cls) cell.className = cls;
        if (cell.textContent !== text) cell.textContent = text;
        cell.dataset.code = code;
        cell.setAttribute("aria-label", "Row " + (r + 1) + ", column " + (c + 1) + ": " + describe(code, isMarked));
      }
    }
    const over = race ? state.view.state === "finished" : snap.state !== "in_progress";
    ui.board.dataset.state = race ? "race-" + state.view.state : snap.state;
    // A won board shows every mine flagged: none is left to find.
    ui.minesLeft.textContent = snap.state === "won" ? 0 : snap.mines_left;
    ui.board.setAttribute("aria-disabled", over ? "true" : "false");
    tick();
    if (race) renderRace(); else renderSolo();
  }

  function renderSolo() {
    const snap = state.snapshot;
    if (snap.state === "won") {
      say("You won in " + snap.elapsed.toFixed(2) + " s!");
      loadLeaderboard();
    } else if (snap.state === "lost") say("Boom! You hit a mine.");
    else say(started() ? "Playing" : "Click any cell to start");
  }

  function started() {
    return state.snapshot.cells.some((row) => row.some((code) => code >= 0));
  }

  function tick() {
    const snap = state.snapshot;
    if (!snap) return;
    let seconds = snap.elapsed;
    const running = state.mode === "race"
      ? state.view && state.view.state === "racing"
      : snap.state === "in_progress" && started();
    if (running) seconds += (performance.now() - state.receivedAt) / 1000;
    ui.timer.textContent = Math.floor(seconds);
  }

  function show(snapshot) {
    state.snapshot = snapshot;
    state.receivedAt = performance.now();
    render();
  }

  // -- what a click does -------------------------------------------------------------

  function flagsAround(r, c) {
    const [rows, cols] = state.shape;
    let flags = 0;
    for (let dr = -1; dr <= 1; dr++) {
      for (let dc = -1; dc <= 1; dc++) {
        const y = r + dr, x = c + dc;
        if ((dr || dc) && y >= 0 && y < rows && x >= 0 && x < cols) {
          const code = Number(cellAt(y, x).dataset.code);
          if (code === FLAG || cellAt(y, x).classList.contains("marked")) flags++;
        }
      }
    }
    return flags;
  }

  function act(r, c, what) {
    if (!state.snapshot) return;
    const code = Number(cellAt(r, c).dataset.code);
    if (what === "flag") {
      if (code !== HIDDEN && code !== FLAG) return;
      if (state.mode === "race") {
        if (cellAt(r, c).classList.contains("marked")) return;
        const key = r + "," + c;
        if (state.privateFlags.has(key)) state.privateFlags.delete(key);
        else state.privateFlags.add(key);
        render();
      } else send("flag", r, c);
    } else if (what === "chord" || (what === "primary" && code > 0)) {
      if (code > 0 && flagsAround(r, c) === code) send("chord", r, c);
    } else if (what === "primary" && code === HIDDEN) send("reveal", r, c);
  }

  function send(kind, row, col) {
    if (state.mode === "race") {
      if (state.socket && state.socket.readyState === WebSocket.OPEN && state.room.token) {
        state.socket.send(JSON.stringify({ type: "move", kind, row, col }));
      }
      return;
    }
    const game = state.game;
    if (!game || state.snapshot.state !== "in_progress") return;
    state.queue = state.queue.then(async () => {
      if (state.game !== game) return;
      try {
        const answer = await api("POST", "/api/games/" + game.id + "/moves", { kind, row, col }, game.token);
        if (state.game === game) show(answer.snapshot);
      } catch (error) {
        say(error.message);
      }
    });
  }

  ui.board.addEventListener("click", (event) => {
    const cell = event.target.closest(".cell");
    if (cell) { moveFocus(+cell.dataset.r, +cell.dataset.c); act(+cell.dataset.r, +cell.dataset.c, "primary"); }
  });
  ui.board.addEventListener("contextmenu", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell) return;
    event.preventDefault();
    moveFocus(+cell.dataset.r, +cell.dataset.c);
    act(+cell.dataset.r, +cell.dataset.c, "flag");
  });
  ui.board.addEventListener("keydown", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell) return;
    const r = +cell.dataset.r, c = +cell.dataset.c;
    const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (steps[event.key]) {
      event.preventDefault();
      const [rows, cols] = state.shape;
      const [dr, dc] = steps[event.key];
      moveFocus(Math.min(rows - 1, Math.max(0, r + dr)), Math.min(cols - 1, Math.max(0, c + dc)), true);
    } else if (event.key === "f" || event.key === "F") {
      event.preventDefault();
      act(r, c, "flag");
    } else if (event.key === "c" || event.key === "C") {
      event.preventDefault();
      act(r, c, "chord");
    }
  });

  function moveFocus(r, c, focus) {
    const old = cellAt(state.focus[0], state.focus[1]);
    if (old) old.tabIndex = -1;
    state.focus = [r, c];
    const cell = cellAt(r, c);
    cell.tabIndex = 0;
    if (focus) cell.focus();
  }

  // -- a single game -------------------------------------------------------------------

  async function newGame() {
    leaveRoom();
    const preset = ui.preset.value;
    localStorage.setItem("numsweeper.preset", preset);
    say("Starting…");
    try {
      const made = await api("POST", "/api/games", { preset, name: playerName() });
      openGame({ id: made.id, token: made.token }, made);
      if (location.hash) history.replaceState(null, "", location.pathname);
    } catch (error) {
      say(error.message);
    }
  }

  function openGame(game, view) {
    state.mode = "solo";
    state.game = game;
    state.view = null;
    localStorage.setItem(GAME_KEY, JSON.stringify(game));
    ui.race.hidden = true;
    if (view.preset) ui.preset.value = view.preset;
    show(view.snapshot);
    loadLeaderboard();
  }

  async function resumeGame(game) {
    try {
      openGame(game, await api("GET", "/api/games/" + game.id, undefined, game.token));
      return true;
    } catch (error) {
      if (error.status === 404) localStorage.removeItem(GAME_KEY);
      return false;
    }
  }

  async function loadLeaderboard() {
    const preset = (state.mode === "race" && state.view && state.view.preset) || ui.preset.value;
    ui.leadersPreset.textContent = "(" + preset + ")";
    try {
      const board = await api("GET", "/api/leaderboard?preset=" + encodeURIComponent(preset));
      ui.leaders.replaceChildren(...board.entries.map((e) => {
        const tr = document.createElement("tr");
        for (const value of [e.rank, e.name, e.time.toFixed(2), e.three_bv_per_s === null ? "–" : e.three_bv_per_s.toFixed(2)]) {
          const td = document.createElement("td");
          td.textContent = value;
          tr.appendChild(td);
        }
        return tr;
      }));
    } catch (error) {
      // The leaderboard is a nicety: the game goes on without it.
    }
  }

  // -- race rooms ------------------------------------------------------------------

  async function newRace() {
    const preset = ui.preset.value;
    try {
      const made = await api("POST", "/api/rooms", { preset, name: playerName() || "host" });
      localStorage.setItem(ROOM_KEY + made.id, JSON.stringify({ token: made.token, player: made.player }));
      location.hash = "room=" + made.id;  // the hashchange handler enters the room
    } catch (error) {
      say(error.message);
    }
  }

  function enterRoom(id) {
    leaveRoom();
    const saved = JSON.parse(localStorage.getItem(ROOM_KEY + id) || "null");
    state.mode = "race";
    state.game = null;
    state.view = null;
    state.snapshot = null;
    state.privateFlags = new Set();
    state.room = { id, token: saved ? saved.token : null, player: saved ? saved.player : null };
    ui.race.hidden = false;
    ui.raceLink.value = location.origin + location.pathname + "#room=" + id;
    ui.joinForm.hidden = true;
    ui.startButton.hidden = true;
    say("Connecting to the race…");
    connect(state.room);
  }

  function leaveRoom() {
    if (state.socket) {
      const socket = state.socket;
      state.socket = null;
      socket.close();
    }
    state.room = null;
  }

  function connect(room) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(scheme + "//" + location.host + "/api/rooms/" + encodeURIComponent(room.id) + "/ws");
    state.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify(room.token ? { type: "hello", token: room.token } : { type: "hello" }));
    });
    socket.addEventListener("message", (event) => {
      if (state.socket !== socket) return;
      const message = JSON.parse(event.data);
      if (message.type === "room") {
        state.view = message.room;
        show(message.room.snapshot);
      } else if (message.type === "error") {
        say(message.error);
      }
    });
    socket.addEventListener("close", () => {
      if (state.socket !== socket) return;  // left on purpose
      state.socket = null;
      say("Connection lost; reconnecting…");
      setTimeout(() => { if (state.room === room && !state.socket) connect(room); }, 1000);
    });
  }

  function renderRace() {
    const view = state.view, me = state.room.player;
    const player = view.players.find((p) => p.id === me);
    const names = Object.fromEntries(view.players.map((p) => [p.id, p.name]));
    ui.players.replaceChildren(...view.players.map((p) => {
      const li = document.createElement("li");
      li.textContent = p.name + ": " + p.score + (p.still_in ? "" : " (out)") + (p.id === view.host ? " · host" : "");
      li.dataset.player = p.id;
      li.dataset.score = p.score;
      li.dataset.stillIn = p.still_in;
      li.classList.toggle("out", !p.still_in);
      li.classList.toggle("you", p.id === me);
      li.classList.toggle("winner", view.winners.includes(p.id));
      return li;
    }));
    const joining = !state.room.token && view.state === "waiting";
    if (joining && ui.joinForm.hidden && !ui.joinName.value) ui.joinName.value = ui.name.value;
    ui.joinForm.hidden = !joining;
    ui.startButton.hidden = !(me && me === view.host && view.state === "waiting");
    let text;
    if (view.state === "waiting") {
      text = "Waiting for players: share the link. " + (me === view.host ? "Start when everyone is in." : "The host starts the race.");
    } else if (view.state === "racing") {
      text = !player ? "Watching the race." : player.still_in ? "Race on! Your points: " + player.score : "You hit a mine: you are out.";
    } else {
      text = view.winners.length ? "Race over. Winner: " + view.winners.map((id) => names[id]).join(", ") : "Race over. Nobody is left in: nobody wins.";
    }
    ui.raceState.textContent = text;
    say(text);
  }

  ui.joinForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const room = state.room;
    try {
      const joined = await api("POST", "/api/rooms/" + room.id + "/players", { name: ui.joinName.value });
      localStorage.setItem(ROOM_KEY + room.id, JSON.stringify({ token: joined.token, player: joined.player }));
      enterRoom(room.id);
    } catch (error) {
      say(error.message);
    }
  });

  ui.startButton.addEventListener("click", () => {
    if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify({ type: "start" }));
  });

  // -- start-up ------------------------------------------------------------------------

  ui.newGame.addEventListener("submit", (event) => { event.preventDefault(); newGame(); });
  ui.raceButton.addEventListener("click", newRace);
  ui.preset.addEventListener("change", () => { if (state.mode === "solo") loadLeaderboard(); });
  ui.name.addEventListener("change", () => localStorage.setItem("numsweeper.name", ui.name.value.trim()));
  window.addEventListener("resize", fitBoard);
  window.addEventListener("hashchange", route);
  setInterval(tick, 250);

  async function route() {
    const hash = new URLSearchParams(location.hash.slice(1));
    if (hash.get("room")) {
      enterRoom(hash.get("room"));
      return;
    }
    const link = hash.get("game");
    if (link && link.includes(".")) {
      // A resume link carries the game's token: keep it here, not in the address bar.
      const [id, token] = link.split(".", 2);
      history.replaceState(null, "", location.pathname);
      leaveRoom();
      if (await resumeGame({ id, token })) return;
    }
    if (state.mode === "race" || !state.game) {
      leaveRoom();
      const saved = JSON.parse(localStorage.getItem(GAME_KEY) || "null");
      if (saved && await resumeGame(saved)) return;
      newGame();
    }
  }

  ui.preset.value = localStorage.getItem("numsweeper.preset") || "beginner";
  ui.name.value = localStorage.getItem("numsweeper.name") || "";
  route();
})();
