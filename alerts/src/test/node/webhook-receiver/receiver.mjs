// A webhook receiver that trusts nothing of GPU Ledger's code: it verifies every request with the
// Standard Webhooks reference library. Listens on 127.0.0.1 (port chosen by the system), prints
// "listening <port>", then one line per request, "ok <webhook-id>" or "fail <webhook-id> <reason>",
// and answers 204 or 401. The secret is read from the WEBHOOK_SECRET environment variable.
import http from "node:http";
import { Webhook } from "standardwebhooks";

const webhook = new Webhook(process.env.WEBHOOK_SECRET);

const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
        // The raw body as received: the signature covers these bytes, not a re-serialized object.
        const body = Buffer.concat(chunks).toString("utf8");
        const id = request.headers["webhook-id"] ?? "-";
        try {
            webhook.verify(body, request.headers);
            console.log(`ok ${id}`);
            response.writeHead(204).end();
        } catch (error) {
            console.log(`fail ${id} ${error.message}`);
            response.writeHead(401).end();
        }
    });
});

server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
