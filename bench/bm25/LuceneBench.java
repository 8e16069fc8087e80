// Lucene 8 peer for bench/bm25: the same collection and queries as cspipe, in Lucene's own best
// single-thread configuration. Run with Java's single-file launcher (no build step):
//   java -cp <lucene-core-8.jar>:<lucene-analyzers-common-8.jar> bench/bm25/LuceneBench.java <mode> ...
//
//   build  <collection.tsv> <indexDir> <ramBufferMB>
//          Indexes `id \t text` lines in file order with Anserini's DefaultEnglishAnalyzer on one
//          thread (SerialMergeScheduler: merges run on the indexing thread too), commits, then
//          forceMerge(1) (one segment, like cspipe's index). Prints one JSON line with the seconds
//          of each phase, the index size and the JVM's peak resident memory.
//   search <indexDir> <queries.tsv> <k1> <b> <k> <warmup> <repeats> <withIds>
//          BM25Similarity(k1, b); Anserini's bag-of-words query (one SHOULD TermQuery per distinct
//          term, boosted by its count); top k by score with block-max WAND (TopScoreDocCollector with
//          totalHitsThreshold = k, so dynamic pruning starts at once). `warmup` passes over the
//          queries first (JIT), then `repeats` timed passes; withIds=1 also reads each hit's stored id.
//          Prints one JSON line per timed pass, then {"hits": ...} with the first 20 queries' hits.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.en.*;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;

public class LuceneBench {
  static final class AnseriniEnglish extends StopwordAnalyzerBase {
    AnseriniEnglish() { super(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET); }
    @Override protected TokenStreamComponents createComponents(String field) {
      Tokenizer source = new StandardTokenizer();
      TokenStream r = new EnglishPossessiveFilter(source);
      r = new LowerCaseFilter(r);
      r = new StopFilter(r, this.stopwords);
      r = new PorterStemFilter(r);
      return new TokenStreamComponents(source, r);
    }
  }

  static long peakRssKiB() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    } catch (IOException e) { /* not Linux */ }
    return -1;
  }

  static double cpuSeconds() {
    java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() / 1e9;
    }
    return -1;
  }

  static long dirBytes(Path dir) throws IOException {
    long n = 0;
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path p : s) n += Files.size(p);
    }
    return n;
  }

  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  static List<String> analyze(Analyzer a, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = a.tokenStream("contents", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) out.add(term.toString());
      ts.end();
    }
    return out;
  }

  static void build(String collection, String indexDir, double ramMB) throws IOException {
    Path dir = Paths.get(indexDir);
    long t0 = System.nanoTime();
    double c0 = cpuSeconds();
    long docs = 0;
    IndexWriterConfig cfg = new IndexWriterConfig(new AnseriniEnglish())
        .setSimilarity(new BM25Similarity())
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
        .setRAMBufferSizeMB(ramMB)
        .setUseCompoundFile(false)
        .setMergeScheduler(new SerialMergeScheduler());
    long t1;
    double c1;
    try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, cfg);
         BufferedReader in = Files.newBufferedReader(Paths.get(collection), StandardCharsets.UTF_8)) {
      Document doc = new Document();
      StringField id = new StringField("id", "", Field.Store.YES);
      Field contents = new TextField("contents", "", Field.Store.NO);
      doc.add(id);
      doc.add(contents);
      for (String line; (line = in.readLine()) != null; ) {
        int tab = line.indexOf('\t');
        id.setStringValue(line.substring(0, tab));
        contents.setStringValue(line.substring(tab + 1));
        w.addDocument(doc);
        docs++;
      }
      w.commit();
      t1 = System.nanoTime();
      c1 = cpuSeconds();
      w.forceMerge(1);
      w.commit();
    }
    long t2 = System.nanoTime();
    double c2 = cpuSeconds();
    System.out.println("{\"docs\":" + docs + ",\"indexSeconds\":" + (t1 - t0) / 1e9 + ",\"indexCpuSeconds\":" + (c1 - c0)
        + ",\"forceMergeSeconds\":" + (t2 - t1) / 1e9 + ",\"forceMergeCpuSeconds\":" + (c2 - c1)
        + ",\"bytes\":" + dirBytes(dir) + ",\"peakRssKiB\":" + peakRssKiB() + "}");
  }

  static void search(String indexDir, String queriesFile, float k1, float b, int k, int warmup, int repeats, boolean withIds) throws IOException {
    Analyzer analyzer = new AnseriniEnglish();
    List<String[]> queries = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(queriesFile), StandardCharsets.UTF_8)) {
      int tab = line.indexOf('\t');
      queries.add(new String[] {line.substring(0, tab), line.substring(tab + 1)});
    }
    try (FSDirectory d = FSDirectory.open(Paths.get(indexDir)); DirectoryReader reader = DirectoryReader.open(d)) {
      IndexSearcher searcher = new IndexSearcher(reader); // no executor: one thread
      searcher.setSimilarity(new BM25Similarity(k1, b));
      StringBuilder firstHits = new StringBuilder();
      for (int pass = 0; pass < warmup + repeats; pass++) {
        long t0 = System.nanoTime();
        double c0 = cpuSeconds();
        long hits = 0;
        for (int qi = 0; qi < queries.size(); qi++) {
          String[] q = queries.get(qi);
          Map<String, Long> counts = new TreeMap<>();
          for (String t : analyze(analyzer, q[1])) counts.merge(t, 1L, Long::sum);
          if (counts.isEmpty()) continue;
          BooleanQuery.Builder qb = new BooleanQuery.Builder();
          for (Map.Entry<String, Long> e : counts.entrySet()) {
            Query tq = new TermQuery(new Term("contents", e.getKey()));
            qb.add(e.getValue() == 1 ? tq : new BoostQuery(tq, (float) e.getValue()), BooleanClause.Occur.SHOULD);
          }
          TopScoreDocCollector c = TopScoreDocCollector.create(k, k);
          searcher.search(qb.build(), c);
          TopDocs td = c.topDocs();
          hits += td.scoreDocs.length;
          boolean record = pass == 0 && qi < 20;
          if (record) firstHits.append(firstHits.length() == 0 ? "" : ",").append("[").append(json(q[0]));
          for (ScoreDoc sd : td.scoreDocs) {
            if (withIds || record) {
              String id = reader.document(sd.doc).get("id");
              if (record) firstHits.append(",[").append(json(id)).append(",").append(Float.toString(sd.score)).append("]");
            }
          }
          if (record) firstHits.append("]");
        }
        long t1 = System.nanoTime();
        double c1 = cpuSeconds();
        if (pass >= warmup) {
          System.out.println("{\"pass\":" + (pass - warmup) + ",\"queries\":" + queries.size() + ",\"seconds\":" + (t1 - t0) / 1e9
              + ",\"cpuSeconds\":" + (c1 - c0) + ",\"hits\":" + hits + "}");
        }
      }
      System.out.println("{\"firstHits\":[" + firstHits + "],\"peakRssKiB\":" + peakRssKiB() + "}");
    }
  }

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "build" -> build(args[1], args[2], Double.parseDouble(args[3]));
      case "search" -> search(args[1], args[2], Float.parseFloat(args[3]), Float.parseFloat(args[4]), Integer.parseInt(args[5]),
          Integer.parseInt(args[6]), Integer.parseInt(args[7]), args[8].equals("1"));
      default -> throw new IllegalArgumentException("unknown mode " + args[0] + " (build | search)");
    }
  }
}
