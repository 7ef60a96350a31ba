import { parseHere } from './apps/asset-sources/src/feeds/reading/feed-parsing';
import { encodeBatch } from './apps/asset-sources/src/feeds/reading/feed-parse.protocol';
import { emptyFeedConfig } from './apps/asset-sources/src/feeds/reading/feed-reader';
import { MessageChannel } from 'node:worker_threads';
const COLS = ['sku','title','description','link','image_link','price','brand','category','availability','gtin'];
function row(i: number){const sku=`SKU-${String(i).padStart(8,'0')}`;return [sku,`Product ${i} in colour ${i%17}`,`"Comfortable, durable item number ${i}; machine washable and made from recycled material of grade ${i%9}"`,`https://shop.example.com/p/${sku}`,`https://cdn.example.com/images/${sku}.jpg`,`${(i%500)+0.99} USD`,`Brand ${i%120}`,`Apparel > Category ${i%40} > Sub ${i%7}`,i%11===0?'out of stock':'in stock',String(400000000000+i)].join(',');}
const parts: Buffer[] = []; let text = COLS.join(',') + '\n';
for (let i = 0; i < 300000; i++) { text += row(i) + '\n'; if (text.length > 65536) { parts.push(Buffer.from(text)); text = ''; } }
parts.push(Buffer.from(text));
async function* body() { for (const p of parts) yield p; }
(async () => {
  const { port1, port2 } = new MessageChannel();
  port2.on('message', () => undefined);
  const c0 = process.cpuUsage(); const t0 = Date.now(); let n = 0;
  const config = emptyFeedConfig({ cdp: false });
  const parsed = parseHere(body(), { contentType: 'csv', characterEncoding: 'UTF_8', csvSeparator: 'comma', firstRowIsHeader: true, cdp: false }, config);
  for await (const b of parsed.batches) { n += b.length; port1.postMessage(encodeBatch(b)); }
  const c = process.cpuUsage(c0);
  console.log(n, 'cpu µs/row', ((c.user + c.system) / n).toFixed(2), 'wall', Date.now() - t0);
  port1.close(); port2.close();
})();
