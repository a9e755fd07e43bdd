// Writes the private key of one entry of a PKCS#12 keystore as an unencrypted PKCS#8 PEM file,
// which keytool cannot do: Node's TLS client takes its key as PEM.
// Run in source-file mode: java export-key.java <keystore.p12> <password> <alias> <out.pem>
import java.io.FileInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;

class ExportKey {
  public static void main(String[] args) throws Exception {
    char[] password = args[1].toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (FileInputStream in = new FileInputStream(args[0])) {
      store.load(in, password);
    }
    byte[] der = store.getKey(args[2], password).getEncoded();
    String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    String pem = "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n";
    Files.writeString(Path.of(args[3]), pem);
  }
}
