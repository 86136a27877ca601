package imagehit

// Script is NAME.js, the same for every counter and every view: it finds
// its counter from its own URL (document.currentScript), counts the page
// it runs on with NAME.count, and fills the page's elements from that one
// answer: data-counter="views", "visitors", "site-views",
// "site-visitors"; data-counter-page="/path/" (views, or visitors with
// data-counter="visitors"); busuanzi's spans (busuanzi_value_site_pv,
// _site_uv, _page_pv, their busuanzi_container_ shown inline, vercount's
// vercount_value_ and vercount_container_ alike, and soxft/busuanzi's
// busuanzi_site_pv style); and data-counter="top" from
// NAME.json?top=N, asked only when the page has one, and only once the
// count has answered, so that the list includes the view. It writes
// textContent alone, links only paths of the page's own origin, sends
// the page's origin alone as its requests' Referer (the count names its
// page; a page whose policy is no-referrer is still one of the site's
// hosts, which a new page's row needs), needs no
// eval or inline code, waits for a prerendered page to be shown, and
// counts again when the page changes by the history API, or when
// hitcounter.count() is called (pjax) on a page it has not counted:
// called again on the same page, it only fills the new elements from
// the answer it has. Run again in the same window (a theme's pjax runs
// the page's scripts anew after each change; a theme and its owner may
// both load it), it only calls hitcounter.count(), so that a view is
// never sent twice, which would be a reload. An element marked
// data-counter-abbreviated, or inside one (<body
// data-counter-abbreviated>), shows its figure short
// (1.2K), as abbreviated=1 draws it: hitcounter.short is that rule, which
// a test holds to counter.Abbreviate. deploy/doc/script.md is its
// manual; it is kept small (at most 2 KiB, a test says so) by hand.
const Script = `((d,w)=>{var s=d.currentScript,L=location,e=encodeURIComponent,D="data-counter",E=D+"-page",A="addEventListener",o={once:!0},H=w.hitcounter,Z,R,Q=d.referrer,
q=x=>d.querySelectorAll(x),g=(x,k)=>x.getAttribute(k),C=x=>d.createElement(x),I=x=>d.getElementById(x),
K=n=>{for(var i=0;n>=999.95&&i<6;i++)n/=1e3;return i?Math.round(n*10)/10+" K M B T Qa Qi".split(" ")[i]:n},
S=(x,v)=>x&&v!=null&&(x.textContent=x.closest("["+D+"-abbreviated]")?K(v):v),W=()=>L.pathname+L.search,
G=(u,f)=>fetch(u,{referrerPolicy:"origin"}).then(r=>r.ok&&r.json()).then(r=>r&&f(r),()=>{}),
F=r=>{var m={views:r.page_views,visitors:r.page_visitors,"site-views":r.views,"site-visitors":r.visitors},p={},k,V;r.pages.map(x=>p[x.page]=x);
q("["+D+"],["+E+"]").forEach(x=>{var k=g(x,D)||"views",y=g(x,E);y==null?S(x,m[k]):(y=p[y])&&S(x,y[k=="visitors"?k:"views"])});
for(k in V={site_pv:r.views,site_uv:r.visitors,page_pv:r.page_views,page_uv:r.page_visitors})["busuanzi_","vercount_"].map(p=>{
var c=I(p+"container_"+k);S(I(p+"value_"+k),V[k]);S(I("busuanzi_"+k),V[k]);c&&(c.style.display="inline")})},
T=()=>q("["+D+"=top]").forEach(x=>G(b+".json?top="+(+g(x,D+"-top")||5),r=>{
x.textContent="";var l=/^[OU]L$/.test(x.tagName)?x:x.appendChild(C("ul"));r.top.map(t=>{var i=C("li"),a=C("a"),p=""+t.page;
if(/^\/(?![\/\\])/.test(p))a.href=p;a.textContent=t.title||p;i.append(a," "+t.views);l.append(i)})})),
U=()=>Y(Z=W(),R=0),Y=()=>{if(d.prerendering)return d[A]("prerenderingchange",Y,o);if(d.readyState[0]=="l")return d[A]("DOMContentLoaded",Y,o);var u=b+".count?page="+e(Z),h,P={},n=0;try{h=new URL(Q).hostname}catch{}Q="";if(h&&h!=L.hostname)u+="&ref="+e(h);
q("["+E+"]").forEach(x=>{var y=g(x,E);if(!P[y]&&n<100&&u.length<7e3){P[y]=1;n++;u+="&p="+e(y)}});
G(u,r=>F(R=r)).then(T)},N=()=>W()!=Z&&U(),ps=history.pushState;
if(H?.count)return H.count();if(!s)return;var b=s.src.replace(/\.js([?#].*)?$/i,"");history.pushState=function(...a){ps.apply(this,a);setTimeout(N)};
w[A]("popstate",N);w.hitcounter={short:K,count:()=>W()!=Z?U():R&&(F(R),T())};U()})(document,window)
`
