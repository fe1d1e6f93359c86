/* Suggestions as you type in every search box (ARIA 1.2 combobox with a listbox).

   Progressive enhancement: without this script each box is a plain form that
   submits to the search page, and it still does when no suggestion is chosen.
   The suggestions come from one endpoint, named by this script's
   data-suggest-url; names are set as text, never parsed as HTML. */
(function () {
  "use strict";

  var script = document.currentScript;
  var endpoint = script && script.dataset.suggestUrl;
  var DELAY_MS = 120;
  // A single letter matches a fifth of the archive: its suggestions say little.
  var MIN_CHARS = 2;
  var count = 0;

  function enhance(input) {
    var form = input.form;
    var id = "suggest-" + (++count);
    var list = document.createElement("ul");
    var status = document.createElement("div");
    var options = [];
    var active = -1;
    var timer = null;
    var pending = null;
    var shownFor = null;

    list.id = id + "-list";
    list.className = "suggestions";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Suggestions");
    list.hidden = true;
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    form.classList.add("has-suggestions");
    form.appendChild(list);
    form.appendChild(status);

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("autocomplete", "off");

    function setActive(index) {
      if (active >= 0) options[active].setAttribute("aria-selected", "false");
      active = index;
      if (active >= 0) {
        options[active].setAttribute("aria-selected", "true");
        input.setAttribute("aria-activedescendant", options[active].id);
        options[active].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function close() {
      setActive(-1);
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
    }

    function open() {
      if (options.length) {
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
      }
    }

    function show(query, suggestions) {
      shownFor = query;
      setActive(-1);
      list.textContent = "";
      options = suggestions.map(function (item, index) {
        var option = document.createElement("li");
        var name = document.createElement("span");
        var kind = document.createElement("span");
        option.id = id + "-option-" + index;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        option.dataset.url = item.url;
        name.className = "suggestion-name";
        name.textContent = item.name;
        kind.className = "suggestion-kind";
        kind.textContent = item.context ? item.kind + " · " + item.context : item.kind;
        option.appendChild(name);
        option.appendChild(kind);
        list.appendChild(option);
        return option;
      });
      status.textContent = options.length
        ? options.length + (options.length === 1 ? " suggestion" : " suggestions") +
          ", up and down arrows to choose"
        : query ? "No suggestions" : "";
      if (options.length) open(); else close();
    }

    function fetchFor(query) {
      if (pending) pending.abort();
      if (query.trim().length < MIN_CHARS) { show("", []); return; }
      pending = new AbortController();
      fetch(endpoint + "?q=" + encodeURIComponent(query), {
        signal: pending.signal,
        headers: { Accept: "application/json" },
      })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) {
          // An answer for what the box no longer says is dropped.
          if (body && input.value === query) show(query, body.suggestions);
        })
        .catch(function () { /* aborted or offline: the form still works */ });
    }

    function choose(option) {
      window.location.assign(option.dataset.url);
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      var query = input.value;
      timer = setTimeout(function () { fetchFor(query); }, DELAY_MS);
    });

    input.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      switch (event.key) {
        case "ArrowDown":
        case "ArrowUp":
          if (!options.length) return;
          event.preventDefault();
          if (list.hidden) {
            open();
            setActive(event.key === "ArrowDown" ? 0 : options.length - 1);
            return;
          }
          // Past either end the choice goes back to the text as typed.
          var next = active + (event.key === "ArrowDown" ? 1 : -1);
          setActive(next < -1 ? options.length - 1 : next >= options.length ? -1 : next);
          return;
        case "Enter":
          if (!list.hidden && active >= 0) {
            event.preventDefault();
            choose(options[active]);
          }
          return; // else the form submits to the search page
        case "Escape":
          if (!list.hidden) {
            event.preventDefault();
            close();
          } else if (input.value) {
            event.preventDefault();
            input.value = "";
            show("", []);
          }
          return;
        case "Tab":
          close();
          return;
      }
    });

    input.addEventListener("focus", function () {
      if (shownFor === input.value) open();
    });
    input.addEventListener("blur", close);
    // mousedown, not click: the box keeps the focus until the choice is made.
    list.addEventListener("mousedown", function (event) {
      event.preventDefault();
      var option = event.target.closest("[role=option]");
      if (option) choose(option);
    });
  }

  if (!endpoint || !window.fetch || !window.AbortController) return;
  document.querySelectorAll('form[role="search"] input[type="search"]').forEach(enhance);
})();
