"""The page's stylesheet and script, inlined so the file works opened from disk with no network."""

from __future__ import annotations

CSS = """
:root{--bg:#fbfbfa;--fg:#1d1f21;--mut:#6a6f76;--card:#fff;--line:#e2e3e5;--before:#c9ced6;--after:#2f7de1;
--cut:#b3541e;--cutbg:#fff3ea;--kept:#1f7a3a;--keptbg:#e6f6ea;--code:#f4f5f6}
:root[data-theme=dark]{--bg:#15171a;--fg:#e4e6e9;--mut:#9aa1aa;--card:#1d2024;--line:#30353b;--before:#4a515b;
--after:#5aa2ff;--cut:#f0a070;--cutbg:#33261d;--kept:#7fd49a;--keptbg:#1c2e22;--code:#23272c}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#15171a;--fg:#e4e6e9;--mut:#9aa1aa;
--card:#1d2024;--line:#30353b;--before:#4a515b;--after:#5aa2ff;--cut:#f0a070;--cutbg:#33261d;--kept:#7fd49a;
--keptbg:#1c2e22;--code:#23272c}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
header{position:sticky;top:0;z-index:2;background:var(--bg);border-bottom:1px solid var(--line);padding:10px 18px}
h1{font-size:17px;margin:0 0 4px}
.sum{color:var(--mut);font-size:13px}
.tools{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;margin-top:6px;font-size:13px}
.tools label{white-space:nowrap}
button,select{font:inherit;background:var(--card);color:var(--fg);border:1px solid var(--line);border-radius:5px;
padding:2px 8px}
main{display:grid;grid-template-columns:minmax(0,1fr) 290px;gap:18px;padding:14px 18px;max-width:1400px}
aside{position:sticky;top:120px;align-self:start}
table{border-collapse:collapse;width:100%;font-size:13px;background:var(--card)}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:right}
th:first-child,td:first-child{text-align:left}
.msg{content-visibility:auto;contain-intrinsic-size:auto 160px;background:var(--card);border:1px solid var(--line);
border-radius:7px;margin:0 0 10px;padding:8px 12px}
.msg[hidden]{display:none}
h2.conv{font-size:13px;color:var(--mut);margin:16px 0 6px;font-weight:600}
.head{display:flex;gap:10px;align-items:center;font-size:12px;color:var(--mut)}
.role{font-weight:600;text-transform:uppercase;color:var(--fg)}
.badge{border-radius:4px;padding:0 6px;font-size:11px;font-weight:600}
.badge.kept{background:var(--keptbg);color:var(--kept)}
.badge.inj{background:var(--code)}
.bar{flex:1;max-width:260px;height:8px;background:var(--code);border-radius:4px;position:relative;overflow:hidden}
.bar i,.bar b{position:absolute;left:0;top:0;bottom:0;border-radius:4px}
.bar i{background:var(--before)}
.bar b{background:var(--after)}
.latest{border-color:var(--kept);box-shadow:0 0 0 1px var(--kept)}
.part{margin-top:6px}
.kind{font-size:11px;color:var(--mut)}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
.changed>pre.text{border-left:3px solid var(--cut);padding-left:8px}
.dropped{color:var(--mut);font-style:italic}
mark.kept{background:var(--keptbg);color:inherit;outline:1px solid var(--kept);border-radius:3px}
details.cut{background:var(--cutbg);border-radius:5px;padding:2px 8px;margin-top:3px}
details.cut summary{cursor:pointer;color:var(--cut);font-size:12px}
details.cut pre{max-height:320px;overflow:auto}
"""

# Filters: a message shows when its role is ticked and, if a rule is chosen, one of its cuts is by
# that rule ("*" = any cut, "" = every message).  The theme toggle cycles auto → dark → light.
JS = """
(function(){
  var root=document.documentElement, msgs=document.querySelectorAll('.msg');
  var roleBoxes=document.querySelectorAll('input[data-role]'), ruleSel=document.getElementById('rule');
  var count=document.getElementById('shown');
  function apply(){
    var roles={}, rule=ruleSel.value, n=0;
    roleBoxes.forEach(function(b){ if(b.checked) roles[b.getAttribute('data-role')]=1; });
    msgs.forEach(function(m){
      var rules=(m.getAttribute('data-rules')||'').split(' ').filter(Boolean);
      var ok=roles[m.getAttribute('data-role')] && (rule==='' || (rule==='*' ? rules.length>0 : rules.indexOf(rule)>=0));
      m.hidden=!ok; if(ok) n++;
    });
    count.textContent=n+' of '+msgs.length+' messages';
  }
  roleBoxes.forEach(function(b){ b.addEventListener('change', apply); });
  ruleSel.addEventListener('change', apply);
  var themes=['auto','dark','light'], btn=document.getElementById('theme');
  function setTheme(t){
    if(t==='auto') root.removeAttribute('data-theme'); else root.setAttribute('data-theme', t);
    btn.textContent='theme: '+t;
    try{ localStorage.setItem('sanitizer-theme', t); }catch(e){}
  }
  btn.addEventListener('click', function(){
    var cur=root.getAttribute('data-theme')||'auto'; setTheme(themes[(themes.indexOf(cur)+1)%3]);
  });
  var saved=null; try{ saved=localStorage.getItem('sanitizer-theme'); }catch(e){}
  setTheme(themes.indexOf(saved)>=0 ? saved : 'auto');
  apply();
})();
"""
