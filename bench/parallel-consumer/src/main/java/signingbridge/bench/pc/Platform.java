package signingbridge.bench.pc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The platform's HTTP interface as the project's SigningClient calls it (src/api-client), on one
 * shared blocking java.net.http client (HTTP/1.1, keep-alive): a JSON POST signed with the three
 * x-svc-open-* headers, the envelope read (code 0 or responseCode "00000000" is success), and the
 * client's own retries: at most 3 attempts, from 200 ms doubling, for a request that could not be
 * sent (no connection) and for 429 and 5xx answers; not for a failure once the request may have
 * reached the platform (its outcome unknown), as src/api-client/transport-errors.ts decides.
 * Thread-safe: every parallel-consumer worker thread calls it.
 */
final class Platform {
  private static final int MAX_ATTEMPTS = 3;
  private static final long INITIAL_DELAY_MS = 200;
  private static final long MAX_DELAY_MS = 5_000;
  private static final String PREFIX = "x-svc-open-";
  private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(Platform::md5);

  private final HttpClient http;
  private final String baseUrl;
  private final String appToken;
  private final String appSecret;
  private final ObjectMapper json;

  Platform(String baseUrl, String appToken, String appSecret, ObjectMapper json) {
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    this.baseUrl = baseUrl.replaceAll("/+$", "");
    this.appToken = appToken;
    this.appSecret = appSecret;
    this.json = json;
  }

  /** A failed call, in the terms of the project's error catalogue (src/errors.ts). */
  static final class Failure extends Exception {
    final String code;
    final String name;
    final boolean retryable;

    Failure(String code, String name, String message, boolean retryable, Throwable cause) {
      super(message, cause);
      this.code = code;
      this.name = name;
      this.retryable = retryable;
    }
  }

  /** POSTs `body` to `path`; the envelope's `result` (a missing node when it has none). */
  JsonNode post(String operation, String path, JsonNode body)
      throws Failure, InterruptedException {
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new Failure("SB_ERR_REQUEST_INVALID", "RequestInvalid", e.getMessage(), false, e);
    }
    long delay = INITIAL_DELAY_MS;
    for (int attempt = 1; ; attempt++) {
      try {
        return attempt(operation, path, bytes);
      } catch (Failure failure) {
        if (!failure.retryable || attempt >= MAX_ATTEMPTS) throw failure;
      }
      Thread.sleep(delay);
      delay = Math.min(MAX_DELAY_MS, delay * 2);
    }
  }

  private JsonNode attempt(String operation, String path, byte[] body)
      throws Failure, InterruptedException {
    String timestamp = Long.toString(System.currentTimeMillis());
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(Duration.ofSeconds(30))
            .header(PREFIX + "accesstoken", appToken)
            .header(PREFIX + "timestamp", timestamp)
            .header(PREFIX + "signature", signature(timestamp))
            .header("content-type", "application/json;charset=UTF-8")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (ConnectException | HttpConnectTimeoutException e) {
      throw new Failure("SB_ERR_TRANSPORT_NOT_SENT", "RequestNotSent", operation + ": " + e, true, e);
    } catch (IOException e) {
      throw new Failure(
          "SB_ERR_TRANSPORT_OUTCOME_UNKNOWN", "OutcomeUnknown", operation + ": " + e, false, e);
    }
    int status = response.statusCode();
    JsonNode envelope;
    try {
      envelope = json.readTree(response.body());
    } catch (IOException e) {
      envelope = null;
    }
    if (envelope == null || !envelope.isObject()) {
      boolean retryable = status == 429 || status >= 500;
      throw new Failure(
          "SB_ERR_TRANSPORT_HTTP_STATUS",
          "UnexpectedHttpStatus",
          operation + ": unexpected HTTP " + status,
          retryable,
          null);
    }
    JsonNode code = envelope.path("code");
    JsonNode responseCode = envelope.path("responseCode");
    if ((code.isNumber() && code.asInt() == 0) || "00000000".equals(responseCode.asText(null))) {
      return envelope.path("result");
    }
    String raw = responseCode.isTextual() ? responseCode.asText() : code.asText();
    throw new Failure(
        "SB_ERR_PLATFORM_REJECTED",
        "PlatformRejected",
        operation + " rejected by the platform: " + raw + ": " + envelope.path("message").asText(""),
        status == 429 || status >= 500,
        null);
  }

  /** Lowercase hex MD5 of appToken + appSecret + timestamp (src/api-client/signature.ts). */
  private String signature(String timestamp) {
    MessageDigest md5 = MD5.get();
    md5.reset();
    byte[] digest =
        md5.digest((appToken + appSecret + timestamp).getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(digest);
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
