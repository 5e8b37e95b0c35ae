// The test host's page: the extension's AppBridge between a view in a
// sandboxed frame and the MCP client, which runs in node (the test) and is
// reached through the functions the test exposes on the page
// (hostCallTool). show() renders one view with one tool result, the way a
// host does: the view's HTML with its content security policy, the
// person's theme, then the tool's arguments and result.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

declare global {
  interface Window {
    hostCallTool(params: unknown): Promise<any>;
    show(o: { html: string; csp: string; theme: "light" | "dark"; args: unknown; result: unknown }): Promise<void>;
    messages: unknown[];
  }
}

window.messages = [];

window.show = async ({ html, csp, theme, args, result }) => {
  document.documentElement.dataset.theme = theme;
  document.body.style.background = theme === "dark" ? "#0d1117" : "#ffffff";
  const frame = document.createElement("iframe");
  frame.id = "view";
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style.cssText = "width:420px;height:200px;border:0;display:block";
  const withCsp = html.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`);
  // The bridge listens before the page loads: the view asks to initialize
  // as soon as it runs.
  document.getElementById("host")!.replaceChildren(frame);
  const bridge = new AppBridge(
    null,
    { name: "views-test-host", version: "1.0.0" },
    { serverTools: {}, openLinks: {} },
    {
      hostContext: {
        theme,
        displayMode: "inline",
        containerDimensions: { maxWidth: 420 },
        styles: { variables: {} as any },
      },
    },
  );
  bridge.oncalltool = async (params) => window.hostCallTool(params);
  bridge.onmessage = async (params) => {
    window.messages.push(params);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${Math.ceil(height)}px`;
  };
  const ready = new Promise<void>((r) => (bridge.oninitialized = () => r()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = withCsp;
  await ready;
  await bridge.sendToolInput({ arguments: args as any });
  await bridge.sendToolResult(result as any);
};
