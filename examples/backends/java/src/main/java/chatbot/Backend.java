package chatbot;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A ChatBot webhook backend on the JDK's HTTP server, checked against the webhook contract's JSON
 * Schema (request.json, response.json from pulumi-chatbot) with networknt's json-schema-validator:
 * it refuses a request that is not ChatBot's (400) and, before sending, an answer ChatBot would
 * refuse (500).
 *
 * <p>Settings, from the environment: CHATBOT_SCHEMA_DIR, the folder holding request.json and
 * response.json (required); PORT, the port on 127.0.0.1 (default 8080; 0 picks a free one);
 * WEBHOOK_TOKEN, the connection's token, which the verification request and every call must carry;
 * WEBHOOK_TOKENS, during a rotation, the tokens accepted as a JSON list, e.g. ["&lt;next&gt;",
 * "&lt;current&gt;"] (JSON, so a token may hold any character, commas too; with WEBHOOK_TOKEN, both count);
 * BAD_ANSWER=1, to answer with a message over ChatBot's 1024 characters and see it refused.
 */
public final class Backend {
    private static final JsonMapper JSON = JsonMapper.shared();
    private static final List<byte[]> TOKENS = acceptedTokens();
    private static final boolean BAD_ANSWER = "1".equals(System.getenv("BAD_ANSWER"));

    private Backend() {}

    /** The validator's failures as one line, or null when the value is valid. */
    private static String problem(Schema schema, JsonNode value) {
        List<Error> errors = schema.validate(value);
        if (errors.isEmpty()) return null;
        return errors.stream().map(Error::toString).collect(Collectors.joining("; "));
    }

    /** What the bot says: replace it with your own. BAD_ANSWER shows the check refusing it. */
    private static ObjectNode answer(JsonNode call) {
        ObjectNode body = JSON.createObjectNode();
        String message = BAD_ANSWER ? "x".repeat(1025) : "Hello, " + call.path("userId").asString();
        body.putArray("responses").addObject().put("type", "text").put("message", message);
        body.putObject("attributes").put("greeted", "yes");
        return body;
    }

    private static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> out = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null) return out;
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            out.putIfAbsent(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    /** Every token a call may carry, from WEBHOOK_TOKEN and WEBHOOK_TOKENS; null: none is checked. */
    private static List<byte[]> acceptedTokens() {
        List<byte[]> tokens = new ArrayList<>();
        String one = System.getenv("WEBHOOK_TOKEN");
        if (one != null) tokens.add(one.getBytes(StandardCharsets.UTF_8));
        String listed = System.getenv("WEBHOOK_TOKENS");
        if (listed != null) {
            JsonNode list;
            try {
                list = JSON.readTree(listed);
            } catch (JacksonException e) {
                list = null;
            }
            boolean valid = list != null && list.isArray() && !list.isEmpty();
            for (JsonNode token : valid ? list : JSON.createArrayNode()) {
                valid &= token.isString() && !token.asString().isEmpty();
                if (valid) tokens.add(token.asString().getBytes(StandardCharsets.UTF_8));
            }
            if (!valid) {
                // Named, never shown: the value is a secret.
                System.err.println("WEBHOOK_TOKENS: must be a JSON list of non-empty strings, e.g. [\"<next>\", \"<current>\"]");
                System.exit(2);
            }
        }
        return tokens.isEmpty() ? null : tokens;
    }

    private static boolean tokenOk(Map<String, String> query) {
        if (TOKENS == null) return true;
        byte[] given = query.getOrDefault("token", "").getBytes(StandardCharsets.UTF_8);
        // Compared with every accepted token, none skipped, each in constant time: which one
        // matched does not show in the time taken.
        boolean ok = false;
        for (byte[] token : TOKENS) ok |= MessageDigest.isEqual(given, token);
        return ok;
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] data = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("content-type", contentType);
        exchange.sendResponseHeaders(status, data.length);
        exchange.getResponseBody().write(data);
        exchange.close();
    }

    private static void error(HttpExchange exchange, int status, String message) throws IOException {
        send(exchange, status, "application/json", JSON.createObjectNode().put("error", message).toString());
    }

    public static void main(String[] args) throws IOException {
        String dir = System.getenv("CHATBOT_SCHEMA_DIR");
        if (dir == null) throw new IllegalStateException("CHATBOT_SCHEMA_DIR: the folder holding request.json and response.json");
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        Schema request;
        Schema response;
        try (InputStream r = Files.newInputStream(Path.of(dir, "request.json"));
                InputStream a = Files.newInputStream(Path.of(dir, "response.json"))) {
            request = registry.getSchema(r);
            response = registry.getSchema(a);
        }

        String port = System.getenv().getOrDefault("PORT", "8080");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(port)), 0);
        server.createContext("/", exchange -> {
            Map<String, String> query = query(exchange);
            String method = exchange.getRequestMethod();
            if (method.equals("GET") && query.containsKey("challenge")) {
                // ChatBot's verification request: the challenge back as the body, when the token is right.
                if (!tokenOk(query)) error(exchange, 401, "unauthorized");
                else send(exchange, 200, "text/plain; charset=utf-8", query.get("challenge"));
                return;
            }
            if (!method.equals("POST")) {
                error(exchange, 405, "method not allowed: use POST");
                return;
            }
            if (!tokenOk(query)) {
                error(exchange, 401, "unauthorized");
                return;
            }
            JsonNode call;
            try {
                call = JSON.readTree(exchange.getRequestBody().readNBytes(1 << 20));
            } catch (JacksonException e) {
                error(exchange, 400, "request body is not valid JSON");
                return;
            }
            String refused = problem(request, call);
            if (refused != null) {
                error(exchange, 400, "not ChatBot's request (request.json): " + refused);
                return;
            }
            ObjectNode body = answer(call);
            refused = problem(response, body);
            if (refused != null) {
                // ChatBot would fail the call anyway; a 500 says whose fault it is, here and in its log.
                String message = "answer refused by response.json: " + refused;
                System.err.println(message);
                error(exchange, 500, message);
                return;
            }
            send(exchange, 200, "application/json", body.toString());
        });
        server.start();
        System.out.println("listening on http://127.0.0.1:" + server.getAddress().getPort());
    }
}
