// What the three views share: the connection to the host (the extension's
// App), the theme, the answer's JSON, covers through the host, and the
// formats of times and dates.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";

export type Data = Record<string, any>;

// start connects to the host and calls render with every tool result it
// hands over: its structured content, or, from a host that passes the text
// alone, the text's JSON.
export function start(name: string, render: (data: Data, app: App) => void): App {
  const app = new App({ name, version: "1.0.0" }, {}, { autoResize: true });
  const theme = (ctx: McpUiHostContext | undefined) => {
    if (!ctx) return;
    if (ctx.theme) applyDocumentTheme(ctx.theme);
    if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
    if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  };
  app.onhostcontextchanged = (ctx) => theme({ ...app.getHostContext(), ...ctx });
  app.ontoolresult = (result) => {
    const root = document.getElementById("root")!;
    if (result.isError) {
      root.replaceChildren(el("p", "note", textOf(result) || "The tool answered with an error."));
      return;
    }
    let data: Data | undefined = result.structuredContent as Data | undefined;
    if (!data) {
      try {
        data = JSON.parse(textOf(result));
      } catch {
        root.replaceChildren(el("p", "note", textOf(result)));
        return;
      }
    }
    render(data!, app);
    document.body.dataset.rendered = "1";
  };
  app.connect().then(() => theme(app.getHostContext()));
  return app;
}

function textOf(result: { content?: any[] }): string {
  const c = (result.content ?? []).find((x: any) => x?.type === "text");
  return c ? String(c.text) : "";
}

// el makes an element with a class and text.
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = "", text = ""): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
}

// hours is a duration in seconds as "3 h 05 min" or "42 min".
export function hours(s: number): string {
  s = Math.max(0, Math.round(s));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h === 0) return `${m} min`;
  return `${h} h ${String(m).padStart(2, "0")} min`;
}

// day is an ISO date or time as its date, YYYY-MM-DD.
export function day(iso: string | undefined): string {
  return iso ? iso.slice(0, 10) : "";
}

// cover fills img with the item's cover, read through the host by the
// server's get_item_cover tool (the view holds no key and reaches no
// server of its own); an item without one keeps the placeholder.
export function cover(app: App, img: HTMLImageElement, itemID: string) {
  app
    .callServerTool({ name: "get_item_cover", arguments: { library_item_id: itemID, width: 96 } })
    .then((r) => {
      const image = (r.content ?? []).find((c: any) => c.type === "image") as any;
      if (!r.isError && image?.data) {
        img.src = `data:${image.mimeType};base64,${image.data}`;
        img.classList.add("loaded");
      }
    })
    .catch(() => {});
}

// ask asks the host to go on in the conversation with the person's words.
export function ask(app: App, text: string) {
  app.sendMessage({ role: "user", content: [{ type: "text", text }] }).catch(() => {});
}
