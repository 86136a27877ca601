package imagehit

// Script is NAME.js, the same for every counter and every view: it finds
// its counter from its own URL (document.currentScript), counts the page
// it runs on with NAME.count, and fills the page's elements from that one
// answer: data-counter="views", "visitors", "site-views",
// "site-visitors"; data-counter-page="/path/" (views, or visitors with
// data-counter="visitors"); busuanzi's spans (busuanzi_value_site_pv,
// _site_uv, _page_pv, their busuanzi_container_ shown inline, and
// soxft/busuanzi's busuanzi_site_pv style); and data-counter="top" from
// NAME.json?top=N, asked only when the page has one, and only once the
// count has answered, so that the list includes the view. It writes
// textContent alone, links only paths of the page's own origin, needs no
// eval or inline code, waits for a prerendered page to be shown, and
// counts again when the page changes by the history API, or when
// hitcounter.count() is called (pjax) on a page it has not counted:
// called again on the same page, it only fills the new elements from
// the answer it has. An element marked data-counter-abbreviated, or
// inside one (<body data-counter-abbreviated>), shows its figure short
// (1.2K), as abbreviated=1 draws it: hitcounter.short is that rule, which
// a test holds to counter.Abbreviate. deploy/doc/script.md is its
// manual; it is kept small (at most 2 KiB, a test says so) by hand.
const Script = `((d,w)=>{var s=d.currentScript,L=location,e=encodeURIComponent,D="data-counter",A="addEventListener",o={once:!0},Z,R,ref=d.referrer,
q=x=>d.querySelectorAll(x),g=(x,k)=>x.getAttribute(k),C=x=>d.createElement(x),
K=n=>{for(var i=0;n>=999.95&&i<6;i++)n/=1e3;return i?Math.round(n*10)/10+" K M B T Qa Qi".split(" ")[i]:n},
S=(x,v)=>{if(x&&v!=null)x.textContent=x.closest("["+D+"-abbreviated]")?K(v):v},W=()=>L.pathname+L.search,I=x=>d.getElementById("busuanzi_"+x),
G=(u,f)=>fetch(u).then(r=>r.ok&&r.json()).then(r=>{r&&f(r)},()=>{}),
F=r=>{var m={views:r.page_views,visitors:r.page_visitors,"site-views":r.views,"site-visitors":r.visitors},p={};
r.pages.forEach(x=>{p[x.page]=x});
q("["+D+"],["+D+"-page]").forEach(x=>{var k=g(x,D)||"views",y=g(x,D+"-page");
if(y==null)S(x,m[k]);else if(y=p[y])S(x,y[k=="visitors"?k:"views"])});
[["site_pv",r.views],["site_uv",r.visitors],["page_pv",r.page_views],["page_uv",r.page_visitors]].forEach(a=>{
var c=I("container_"+a[0]);S(I("value_"+a[0]),a[1]);S(I(a[0]),a[1]);if(c)c.style.display="inline"})},
T=()=>q("["+D+"=top]").forEach(x=>G(b+".json?top="+(+g(x,D+"-top")||5),r=>{
x.textContent="";var l=/^[OU]L$/.test(x.tagName)?x:x.appendChild(C("ul"));
(r.top||[]).forEach(t=>{var i=C("li"),a=C("a"),p=""+t.page;
if(/^\/(?![\/\\])/.test(p))a.href=p;a.textContent=t.title||p;i.append(a," "+t.views);l.append(i)})})),
count=()=>{if(d.prerendering)return d[A]("prerenderingchange",count,o);if(d.readyState=="loading")return d[A]("DOMContentLoaded",count,o);
Z=W();var u=b+".count?page="+e(Z),h,P={},n=0;
try{h=new URL(ref).hostname}catch(x){}ref="";if(h&&h!=L.hostname)u+="&ref="+e(h);
q("["+D+"-page]").forEach(x=>{var y=g(x,D+"-page");if(!P[y]&&n<100&&u.length<7e3){P[y]=1;n++;u+="&p="+e(y)}});
G(u,r=>F(R=r)).then(T)},
N=()=>{W()!=Z&&count()},ps=history.pushState;
if(!s)return;var b=s.src.replace(/\.js([?#].*)?$/i,"");
history.pushState=function(){ps.apply(this,arguments);setTimeout(N)};
w[A]("popstate",N);w.hitcounter={short:K,count:()=>{if(W()!=Z)count();else if(R)F(R),T()}};count()})(document,window)
`
