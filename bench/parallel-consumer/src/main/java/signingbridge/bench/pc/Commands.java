package signingbridge.bench.pc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * The naive baseline's use cases (bench/bridge/baseline/naive-handlers.ts), call for call: parse
 * the command, make its platform calls one after the other, and turn the outcome into one event.
 * remind is POST /v2/contract/notice; approve is POST /v2/contract/employeeaudit; create-contract
 * is the draft, each template document, then the initiation (contractId only) when asked. No
 * ledger, no retries beyond the client's own (Platform), no step events.
 */
final class Commands {
  /** One event to publish: its type, its step (the second half of ce_id) and its data. */
  record Event(String type, String step, ObjectNode data) {}

  /** A record that is a command: its ids and the event it ended with. */
  record Handled(String commandId, String bizId, Event event) {}

  private final Platform platform;
  private final ObjectMapper json;

  Commands(Platform platform, ObjectMapper json) {
    this.platform = platform;
    this.json = json;
  }

  /** Null for a record that is not a readable command: the baseline skips those too. */
  Handled handle(String type, String value) throws InterruptedException {
    JsonNode command;
    try {
      command = value == null ? null : json.readTree(value);
    } catch (IOException e) {
      return null;
    }
    if (command == null
        || !command.path("commandId").isTextual()
        || !command.path("bizId").isTextual()
        || !command.path("payload").isObject()) {
      return null;
    }
    String commandId = command.get("commandId").asText();
    String bizId = command.get("bizId").asText();
    ObjectNode base = json.createObjectNode();
    base.put("commandId", commandId);
    base.put("bizId", bizId);
    base.put("commandType", type);
    Event event;
    try {
      event = call(type, command, base);
    } catch (Platform.Failure failure) {
      event = failed(base, type, failure.code, failure.name, failure.getMessage(), failure.retryable);
    } catch (RuntimeException e) {
      event = failed(base, type, "UNKNOWN", e.getClass().getSimpleName(), String.valueOf(e.getMessage()), false);
    }
    return new Handled(commandId, bizId, event);
  }

  private Event call(String type, JsonNode command, ObjectNode base)
      throws Platform.Failure, InterruptedException {
    JsonNode payload = command.get("payload");
    switch (type) {
      case "remind": {
        platform.post("remindSignatories", "/v2/contract/notice", addressed(payload, command));
        ObjectNode data = base.deepCopy();
        JsonNode onlySigning = payload.path("onlySigning");
        data.put("onlySigning", onlySigning.isBoolean() ? onlySigning.asBoolean() : true);
        return new Event("signingbridge.reminder.sent", type, data);
      }
      case "approve": {
        platform.post("approveContract", "/v2/contract/employeeaudit", addressed(payload, command));
        ObjectNode data = base.deepCopy();
        data.put("pass", payload.path("pass").asBoolean());
        return new Event("signingbridge.approval.recorded", type, data);
      }
      case "create-contract":
        return createContract(command, payload, base);
      default:
        throw new IllegalArgumentException("the baseline does not handle " + type + " commands");
    }
  }

  private Event createContract(JsonNode command, JsonNode payload, ObjectNode base)
      throws Platform.Failure, InterruptedException {
    ObjectNode draftRequest = ((ObjectNode) payload.path("contract")).deepCopy();
    address(draftRequest, command);
    draftRequest.put("send", false);
    JsonNode draft = platform.post("createDraft", "/v2/contract/draft", draftRequest);
    // The platform's ids are longs beyond 2^53: kept as their digits, as the client keeps them.
    String contractId = draft.path("id").asText();
    ArrayNode documentIds = json.createArrayNode();
    for (JsonNode document : payload.path("documents")) {
      if (!"template".equals(document.path("source").asText())) {
        throw new IllegalArgumentException("the baseline adds template documents only");
      }
      ObjectNode request = json.createObjectNode();
      request.put("contractId", contractId);
      for (Iterator<Map.Entry<String, JsonNode>> it = document.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        if (!field.getKey().equals("source")) request.set(field.getKey(), field.getValue());
      }
      JsonNode added =
          platform.post("addDocumentByTemplate", "/v2/document/addbytemplate", request);
      documentIds.add(added.path("documentId").asText());
    }
    boolean initiate = payload.has("initiate") && !payload.get("initiate").isNull();
    if (initiate) {
      ObjectNode request = json.createObjectNode();
      request.put("contractId", contractId);
      platform.post("initiateContract", "/v2/contract/send", request);
    }
    ObjectNode data = base.deepCopy();
    data.put("contractId", contractId);
    data.set("documentIds", documentIds);
    data.put("initiated", initiate);
    data.put("reconciled", false);
    return new Event("signingbridge.contract.created", "created", data);
  }

  /** The payload's fields with the command's bizId and tenantName (when it has one). */
  private static ObjectNode addressed(JsonNode payload, JsonNode command) {
    ObjectNode request = ((ObjectNode) payload).deepCopy();
    address(request, command);
    return request;
  }

  private static void address(ObjectNode request, JsonNode command) {
    request.put("bizId", command.get("bizId").asText());
    JsonNode tenantName = command.path("tenantName");
    if (tenantName.isTextual()) request.put("tenantName", tenantName.asText());
  }

  private static Event failed(
      ObjectNode base, String step, String code, String name, String message, boolean retryable) {
    ObjectNode data = base.deepCopy();
    data.put("step", step);
    ObjectNode error = data.putObject("error");
    error.put("code", code);
    error.put("name", name);
    error.put("message", message);
    error.put("retryable", retryable);
    return new Event("signingbridge.command.failed", step, data);
  }
}
