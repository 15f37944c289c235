// The exported session as one self-contained HTML file: inline style and script, the data as JSON
// in the page, no request to anything when opened (it works offline, from a file). The script
// builds the transcript with textContent only, so nothing of the session can become markup, and
// draws a call's request only when it is opened, so a long session opens fast.

import type { SessionRecord } from '../sessions/index.js';

/** What the page renders: the records in file order, calls with their rebuilt requests. */
export interface ExportData {
  meta: Record<string, unknown>;
  /** Every distinct message any request carried, once. */
  messages: unknown[];
  entries: ExportEntry[];
}

export type ExportEntry =
  | { k: 'record'; record: SessionRecord }
  | {
      k: 'call';
      record: Extract<SessionRecord, { type: 'model_call' }>;
      model: string;
      costUsd: number | null;
      /** Ranges [first, last] of `messages`; null for a call whose request is not a turn's (compaction). */
      request: [number, number][] | null;
    };

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d232b}
header{background:#1d232b;color:#f6f7f9;padding:12px 20px}header h1{font-size:17px;margin:0 0 4px}
header div{font-size:12px;opacity:.85}main{max-width:980px;margin:0 auto;padding:12px 20px}
.e{margin:8px 0;padding:8px 12px;border-radius:6px;background:#fff;border:1px solid #dde1e6}
.turn{background:none;border:none;border-top:2px solid #1d232b;border-radius:0;font-weight:600;margin-top:20px}
.user{border-left:4px solid #2f6fd6}.assistant{border-left:4px solid #2a9d5c}.tool{border-left:4px solid #8a63d2}
.err{border-left:4px solid #c93c3c}.call{font-size:12px;background:#eef1f5}.note{font-size:12px;color:#555;background:#fbfbf3}
.label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:#667;margin-bottom:2px}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0 0;font:12px/1.4 ui-monospace,monospace;max-height:420px;overflow:auto}
.msg{border-top:1px dashed #ccd;padding:4px 0}summary{cursor:pointer}
`;

// Runs in the reader's browser: plain ES2017, no library, no network.
const SCRIPT = `
(function(){
var data=JSON.parse(document.getElementById('session-data').textContent);
var main=document.getElementById('transcript');
function el(tag,cls,text){var n=document.createElement(tag);if(cls)n.className=cls;if(text!=null)n.textContent=String(text);return n;}
function box(cls,label,text){var d=el('div','e '+cls);d.appendChild(el('div','label',label));if(text!=null)d.appendChild(el('pre',null,text));main.appendChild(d);return d;}
function tokens(u){return u?u.inputTokens+' in ('+(u.cachedInputTokens||0)+' cached), '+u.outputTokens+' out':'no usage';}
function message(m){var d=el('div','msg');d.appendChild(el('div','label',m.role));if(m.content)d.appendChild(el('pre',null,m.content));
(m.toolCalls||[]).forEach(function(c){d.appendChild(el('pre',null,'\\u2192 '+c.name+' '+(typeof c.arguments==='string'?c.arguments:JSON.stringify(c.arguments))));});
if(m.role==='tool'||m.output!=null)d.appendChild(el('pre',null,m.output!=null?m.output:''));return d;}
var total=0,priced=false;
data.entries.forEach(function(e){
 if(e.k==='call'){var r=e.record;if(e.costUsd!=null){total+=e.costUsd;priced=true;}
  var d=box('call','model call \\u00b7 turn '+r.turn+' round '+r.round+' \\u00b7 '+r.stage+' \\u00b7 '+e.model);
  d.appendChild(el('div',null,tokens(r.usage)+' \\u00b7 '+r.durationMs+' ms'+(e.costUsd!=null?' \\u00b7 $'+e.costUsd.toFixed(5):'')+(r.finishReason?' \\u00b7 '+r.finishReason:'')+(r.error?' \\u00b7 error '+r.error.code+': '+r.error.message:'')));
  if(e.request){var count=e.request.reduce(function(s,p){return s+p[1]-p[0]+1;},0);
   var det=el('details','request');det.appendChild(el('summary',null,'request: '+count+' messages'));
   det.addEventListener('toggle',function(){if(!det.open||det.dataset.drawn)return;det.dataset.drawn='1';
    e.request.forEach(function(p){for(var i=p[0];i<=p[1];i++)det.appendChild(message(data.messages[i]));});});
   d.appendChild(det);}
  return;}
 var rec=e.record;
 switch(rec.type){
 case 'turn_started':box('turn','turn '+rec.turn+' \\u00b7 '+rec.model+' \\u00b7 '+rec.policy.sandbox+' \\u00b7 '+rec.policy.approvalPolicy+' \\u00b7 '+rec.ts);box('user','user',rec.prompt);break;
 case 'response_item':var it=rec.item;
  if(it.type==='message'&&it.role==='assistant')box('assistant','assistant',it.content);
  else if(it.type==='message'&&it.role==='system')box('note','system prompt',it.content);
  else if(it.type==='reasoning'&&it.text)box('note','reasoning',it.text);
  else if(it.type==='function_call')box('tool','tool call \\u00b7 '+it.name,it.arguments);
  else if(it.type==='function_call_output')box(it.isError?'tool err':'tool','tool output \\u00b7 '+it.name+(it.isError?' \\u00b7 error':''),it.output);
  else if(it.type==='compaction_summary')box('note','compaction summary',it.summary);
  break;
 case 'audit':var ev=rec.event;
  if(ev.type==='tool_permission_decided')box('note','permission \\u00b7 '+ev.name+' \\u00b7 '+ev.decision+' ('+ev.rule+')',ev.reason);
  else if(ev.type==='approval_requested')box('note','approval requested \\u00b7 '+ev.name,ev.summary+'\\n'+ev.reason);
  else if(ev.type==='approval_resolved')box('note','approval \\u00b7 '+ev.name+' \\u00b7 '+ev.decision+' by '+ev.by,ev.message);
  else if(ev.type==='tool_finished')box('note','tool finished \\u00b7 '+ev.name+' \\u00b7 '+ev.durationMs+' ms'+(ev.isError?' \\u00b7 error':''));
  break;
 case 'compaction':box('note','compaction \\u00b7 '+rec.kind,rec.summary!=null?rec.summary:null);break;
 case 'warning':box('note','warning \\u00b7 '+rec.code,rec.message);break;
 case 'turn_completed':case 'turn_failed':case 'turn_cancelled':
  box(rec.type==='turn_completed'?'note':'note err',rec.type.replace('_',' ')+' \\u00b7 '+rec.rounds+' rounds \\u00b7 '+tokens(rec.usage.total),rec.error?rec.error.code+': '+rec.error.message:(rec.reason||null));break;
 }
});
document.getElementById('totals').textContent=data.entries.filter(function(e){return e.k==='call';}).length+' model calls \\u00b7 estimated cost '+(priced?'$'+total.toFixed(4):'n/a')+' (catalog prices)';
})();
`;

/** JSON that cannot end its script element or open a comment, whatever the session holds. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function sessionExportPage(data: ExportData): string {
  const meta = data.meta;
  const title = `Glassbox session ${String(meta.sessionId ?? '')}`;
  const line = [
    meta.model,
    meta.wireApi,
    meta.cwd,
    meta.createdAt,
    meta.glassboxVersion ? `glassbox ${String(meta.glassboxVersion)}` : null,
  ]
    .filter((part) => part !== undefined && part !== null)
    .map(String)
    .join(' · ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title)}</h1><div>${escapeHtml(line)}</div><div id="totals"></div></header>
<main id="transcript"></main>
<script type="application/json" id="session-data">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
