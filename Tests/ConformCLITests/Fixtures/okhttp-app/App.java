// An Android-style app's network layer on OkHttp (Debian's libokhttp-java), for ClientFaultOkHttpTests: it
// registers, logs in, personalizes, then plays a scenario against `conform serve --check --client-faults ...`.
// With "recover" it sends again what the server could not take; with "forget" it gives up at once, with OkHttp's own
// silent retry of a closed connection switched off, as an app that never retries anything.
// Usage: java -cp okhttp.jar:okio.jar App.java BASE SCENARIO recover|forget
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

public class App {
    static final MediaType JSON = MediaType.get("application/json");
    static OkHttpClient client;
    static String base;

    /** A status and a body, or status -1 when the connection gave no answer. */
    static final class Answer {
        final int status;
        final String body;
        Answer(int status, String body) { this.status = status; this.body = body; }
        public String toString() { return status < 0 ? "no answer" : String.valueOf(status); }
    }

    /** Sends up to `tries` times, again after no answer or a 5xx, a tenth of a second apart. */
    static Answer call(String method, String path, String reg, String body, int tries) throws InterruptedException {
        Answer last = new Answer(-1, "");
        for (int i = 0; i < tries; i++) {
            Request.Builder request = new Request.Builder().url(base + path)
                .header("Authorization", "App conform-app-code");
            if (reg != null) request.header("pushregistrationid", reg);
            RequestBody content = body != null ? RequestBody.create(JSON, body)
                : method.equals("GET") ? null : RequestBody.create(JSON, "");
            request.method(method, content);
            try (Response response = client.newCall(request.build()).execute()) {
                last = new Answer(response.code(), response.body().string());
                if (last.status < 500) return last;
            } catch (IOException e) {
                last = new Answer(-1, "");
            }
            if (i + 1 < tries) Thread.sleep(100);
        }
        return last;
    }

    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : "";
    }

    static void event(String kind, String reg, String user) throws Exception {
        String body = "{\"event\":\"" + kind + "\",\"pushRegId\":\"" + reg + "\""
            + (user == null ? "" : ",\"externalUserId\":\"" + user + "\"") + "}";
        if (call("POST", "/_conform/events", null, body, 1).status != 200) throw new IllegalStateException(kind);
    }

    static String register() throws Exception {
        Answer answer = call("POST", "/mobile/1/appinstance?rt=1", null,
            "{\"pushServiceToken\":\"fcm-okhttp\",\"pushServiceType\":\"Firebase\",\"os\":\"Android\"}", 1);
        return field(answer.body, "pushRegId");
    }

    static Answer personalize(String reg, int tries) throws Exception {
        return call("POST", "/mobile/1/appinstance/" + reg + "/personalize?forceDepersonalize=false", reg,
            "{\"userIdentity\":{\"externalUserId\":\"ana\"}}", tries);
    }

    public static void main(String[] args) throws Exception {
        base = args[0];
        String scenario = args[1];
        boolean recover = args[2].equals("recover");
        client = new OkHttpClient.Builder().retryOnConnectionFailure(recover)
            .readTimeout(20, TimeUnit.SECONDS).build();
        int tries = recover ? 100 : 1;
        String reg = register();
        event("login", reg, "ana");
        Answer first = personalize(reg, 1);
        switch (scenario) {
            case "logout":
                event("logout", reg, null);
                System.out.println("depersonalize "
                    + call("POST", "/mobile/1/appinstance/" + reg + "/depersonalize", reg, null, tries));
                break;
            case "login-again":
                if (recover && first.status >= 500) personalize(reg, tries);
                System.out.println("user " + call("PATCH", "/mobile/1/appinstance/" + reg + "/user?ri=0&rt=0", reg,
                    "{\"firstName\":\"Ana\"}", 1));
                break;
            case "forgotten":
                Answer update = call("PATCH", "/mobile/1/appinstance/" + reg, reg, "{\"notificationsEnabled\":true}", 1);
                String code = field(update.body, "messageId");
                System.out.println("update " + update + " " + code);
                if (recover && code.equals("NO_REGISTRATION")) {
                    reg = register();
                    personalize(reg, tries);
                }
                System.out.println("user " + call("GET", "/mobile/1/appinstance/" + reg + "/user?ri=1&rt=0", reg,
                    null, 1));
                break;
            default:
                throw new IllegalArgumentException(scenario);
        }
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }
}
