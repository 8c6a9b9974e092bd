"""A self-contained /docs page: fetches /openapi.json and lists endpoints and schemas.

No CDN is reachable where this runs, so there is no Swagger UI; a hundred lines of plain
JavaScript render the same document.
"""

DOCS_HTML = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Oubliette verifier API</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}
h2{border-bottom:1px solid #ccc;padding-bottom:.2em}
.op{border:1px solid #ddd;border-radius:6px;margin:.8em 0;padding:.6em 1em}
.m{display:inline-block;min-width:4em;font-weight:bold;color:#fff;border-radius:4px;
   padding:.1em .5em;text-align:center;margin-right:.5em}
.get{background:#2b7bb9}.post{background:#3a9e4a}
code,pre{background:#f5f5f5;padding:.1em .3em;border-radius:3px}
pre{padding:.6em;overflow:auto;font-size:.85em}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left;
vertical-align:top}
</style></head><body>
<h1 id="title">Oubliette verifier API</h1>
<p id="desc"></p><p>Raw document: <a href="/openapi.json">/openapi.json</a></p>
<h2>Endpoints</h2><div id="ops"></div>
<h2>Schemas</h2><div id="schemas"></div>
<script>
function esc(s){return String(s).replace(/[&<>"]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));}
function refName(r){return r.split("/").pop();}
function typeOf(s){
  if(!s) return "";
  if(s.$ref) return '<a href="#schema-'+refName(s.$ref)+'">'+refName(s.$ref)+'</a>';
  if(s.anyOf) return s.anyOf.map(typeOf).join(" | ");
  if(s.oneOf) return s.oneOf.map(typeOf).join(" | ");
  if(s.enum) return s.enum.map(v=>JSON.stringify(v)).join(" | ");
  if(s.const!==undefined) return JSON.stringify(s.const);
  if(s.type==="array") return typeOf(s.items)+"[]";
  return esc(s.type||"any");
}
fetch("/openapi.json").then(r=>r.json()).then(doc=>{
  document.getElementById("title").textContent=doc.info.title+" "+doc.info.version;
  document.getElementById("desc").textContent=doc.info.description||"";
  let ops="";
  for(const [path,item] of Object.entries(doc.paths)){
    for(const [method,op] of Object.entries(item)){
      const body=op.requestBody?typeOf(op.requestBody.content["application/json"].schema):"-";
      const codes=Object.keys(op.responses).join(", ");
      ops+='<div class="op"><span class="m '+method+'">'+method.toUpperCase()+'</span><code>'+esc(path)+
        '</code> '+esc(op.summary||"")+'<br>body: '+body+'; responses: '+codes+'</div>';
    }
  }
  document.getElementById("ops").innerHTML=ops;
  let sc="";
  for(const [name,s] of Object.entries(doc.components.schemas)){
    sc+='<h3 id="schema-'+esc(name)+'">'+esc(name)+'</h3>';
    if(s.description) sc+='<p>'+esc(s.description)+'</p>';
    if(s.properties){
      sc+='<table><tr><th>field</th><th>type</th><th>required</th><th>description</th></tr>';
      const req=new Set(s.required||[]);
      for(const [f,p] of Object.entries(s.properties)){
        sc+='<tr><td><code>'+esc(f)+'</code></td><td>'+typeOf(p)+'</td><td>'+(req.has(f)?"yes":"")+
          '</td><td>'+esc(p.description||"")+'</td></tr>';
      }
      sc+='</table>';
    } else { sc+='<pre>'+esc(JSON.stringify(s,null,1))+'</pre>'; }
  }
  document.getElementById("schemas").innerHTML=sc;
}).catch(e=>{document.getElementById("ops").textContent="could not load /openapi.json: "+e;});
</script></body></html>
"""
