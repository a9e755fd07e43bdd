// Writes a ledger history for the ledger scale benchmark (bench/ledger-scale.ts) with Java's
// kafka-clients, which writes tens of millions of records in a fraction of the time kafkajs takes.
// The record values are the bridge's own: templates made by src/ledger's functions, read from a
// file, with {B} standing for the bizId and {K} for a 19-digit contract id. Keyed by bizId with
// the default (murmur2) partitioner, as the bridge partitions its ledger; timestamps spread
// evenly from the first bizId to the last.
//
// java -cp <kafka libs>/*:<this dir> LedgerWriter <brokers> <topic> <prefix> <first> <count>
//      <fromMs> <toMs> <templates file>
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public final class LedgerWriter {
  public static void main(String[] args) throws Exception {
    String brokers = args[0];
    String topic = args[1];
    String prefix = args[2];
    long first = Long.parseLong(args[3]);
    long count = Long.parseLong(args[4]);
    long fromMs = Long.parseLong(args[5]);
    long toMs = Long.parseLong(args[6]);
    List<String> templates = Files.readAllLines(Path.of(args[7]));

    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    config.put(ProducerConfig.ACKS_CONFIG, "1");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    config.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(256L * 1024 * 1024));

    long step = count > 1 ? (toMs - fromMs) / (count - 1) : 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
      for (long i = 0; i < count; i++) {
        String bizId = prefix + (first + i);
        String contractId = Long.toString(1_000_000_000_000_000_000L + first + i);
        long at = fromMs + i * step;
        for (String template : templates) {
          String value = template.replace("{B}", bizId).replace("{K}", contractId);
          producer.send(new ProducerRecord<>(topic, null, at, bizId, value));
        }
        if ((i + 1) % 1_000_000 == 0) System.out.println("written " + (i + 1) + " bizIds");
      }
      producer.flush();
    }
    System.out.println("done " + count + " bizIds");
  }
}
