import Domain
import Foundation
import GRDBSQLite
import Persistence

#if canImport(Glibc)
import Glibc
/// `RUSAGE_SELF` as Glibc's `getrusage` takes it (an `Int32`, not the imported enum).
let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

// Issue 7's storage goals, measured on a release build (`Benchmarks/run-chat-benchmarks`):
// - P4: upserting 10,000 messages through Persistence runs at >= 0.35 of the speed of raw SQLite
//   prepared statements inserting them into the same table in one transaction;
// - P5: opening a room that holds 100,000 cached messages until the latest 50 are delivered
//   takes <= 2 ms, and the sync cursor after it makes the sync ask only for newer messages;
// - P7: peak memory while storing 100,000 messages into an empty store, page by page as a
//   sync does, stays <= 64 MB (measured in a child process of its own);
// - P6 (Delivery.swift): delivery through server and client engine on loopback.
// `ChatBenchmarks fanout` (FanOut.swift, no goal) measures one sender's messages fanned out to
// nine sockets of a group room.
// Each timing is the median of several runs; every number is printed next to its goal.

let room = ChatRoom.ID(rawValue: "room_bench")
let owner = User.ID(rawValue: "u_bench")
let sender = UserSummary(id: "u_peer", nickname: "peer")
let epoch = Date(timeIntervalSince1970: 1_795_000_000)

func messages(_ range: ClosedRange<Int>) -> [ChatMessage] {
  range.map { seq in
    ChatMessage(
      id: ChatMessage.ID(rawValue: "msg_\(seq)"), roomID: room, seq: Int64(seq),
      clientMessageID: UUID(), sender: sender, text: "message number \(seq) 안녕하세요",
      createdAt: epoch.addingTimeInterval(Double(seq)))
  }
}

func temporaryFile(_ name: String) -> String {
  let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("qapple-chat-bench-\(UUID().uuidString)")
  try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return folder.appendingPathComponent(name).path
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted[sorted.count / 2]
}

/// P4's baseline: the same rows into the same schema with one prepared INSERT, in one
/// transaction, through the SQLite C API.
func rawInsert(_ batch: [ChatMessage], path: String) -> Duration {
  // The schema comes from Persistence itself, so tables and indexes are identical.
  let schema = try! ChatStore(at: .file(path: path), owner: owner)
  try! schema.saveRooms([
    ChatRoom(id: room, kind: .direct(sender.id), title: "bench", unreadCount: 0, lastReadSeq: 0)
  ])
  try! schema.close()
  var db: OpaquePointer?
  guard sqlite3_open(path, &db) == SQLITE_OK else { fatalError("cannot open \(path)") }
  defer { sqlite3_close(db) }
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", nil, nil, nil)
  let clock = ContinuousClock()
  let started = clock.now
  sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
  var statement: OpaquePointer?
  sqlite3_prepare_v2(
    db,
    """
    INSERT OR IGNORE INTO message (room_id, id, seq, client_message_id, sender_id,
      sender_nickname, text, created_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sent')
    """, -1, &statement, nil)
  let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
  for message in batch {
    sqlite3_bind_text(statement, 1, message.roomID.rawValue, -1, transient)
    sqlite3_bind_text(statement, 2, message.id.rawValue, -1, transient)
    sqlite3_bind_int64(statement, 3, message.seq ?? 0)
    sqlite3_bind_text(
      statement, 4, message.clientMessageID.lowercasedText, -1, transient)
    sqlite3_bind_text(statement, 5, message.sender.id.rawValue, -1, transient)
    sqlite3_bind_text(statement, 6, message.sender.nickname, -1, transient)
    sqlite3_bind_text(statement, 7, message.text, -1, transient)
    sqlite3_bind_double(statement, 8, message.createdAt.timeIntervalSince1970)
    guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("raw insert failed") }
    sqlite3_reset(statement)
  }
  sqlite3_finalize(statement)
  sqlite3_exec(db, "COMMIT", nil, nil, nil)
  return clock.now - started
}

func persistenceInsert(_ batch: [ChatMessage], path: String) -> Duration {
  let store = try! ChatStore(at: .file(path: path), owner: owner)
  defer { try! store.close() }
  let clock = ContinuousClock()
  let started = clock.now
  let result = try! store.save(batch)
  let elapsed = clock.now - started
  precondition(result.stored == batch.count, "stored \(result.stored) of \(batch.count)")
  return elapsed
}

func p4() -> Bool {
  let batch = messages(1...10_000)
  var raw: [Double] = []
  var persistence: [Double] = []
  for _ in 0..<7 {
    raw.append(seconds(rawInsert(batch, path: temporaryFile("raw.sqlite"))))
    persistence.append(seconds(persistenceInsert(batch, path: temporaryFile("store.sqlite"))))
  }
  let ratio = median(raw) / median(persistence)
  let met = ratio >= 0.35
  print(
    String(
      format:
        "P4 upsert 10,000 messages: Persistence %.1f ms, raw SQLite %.1f ms (medians of 7): "
        + "ratio %.2f of raw speed, goal >= 0.35: %@",
      median(persistence) * 1000, median(raw) * 1000, ratio, met ? "met" : "MISSED"))
  return met
}

func p5() async -> Bool {
  let path = temporaryFile("big.sqlite")
  do {
    let store = try! ChatStore(at: .file(path: path), owner: owner)
    for page in stride(from: 1, through: 100_000, by: 10_000) {
      try! store.save(messages(page...(page + 9_999)))
    }
    try! store.close()
  }
  var openings: [Double] = []
  var storeOpenings: [Double] = []
  var cursor: Int64 = 0
  for _ in 0..<9 {
    let clock = ContinuousClock()
    let opened = clock.now
    let store = try! ChatStore(at: .file(path: path), owner: owner)
    storeOpenings.append(seconds(clock.now - opened))
    // Opening the room: the screen starts observing its latest 50 messages.
    let started = clock.now
    var iterator = store.observeMessages(in: room, limit: 50).makeAsyncIterator()
    let latest = try! await iterator.next() ?? []
    openings.append(seconds(clock.now - started))
    precondition(latest.count == 50 && latest.last?.seq == 100_000)
    cursor = try! store.syncCursor(of: room)
    try! store.close()
  }
  print(
    String(
      format: "   (opening the store file itself, once per app launch: %.2f ms, median of 9)",
      median(storeOpenings) * 1000))
  let opening = median(openings) * 1000
  let met = opening <= 2 && cursor == 100_000
  print(
    String(
      format:
        "P5 open a room of 100,000 cached messages until the latest 50 arrive: %.2f ms (median "
        + "of 9, on an open store); sync cursor %lld, so the sync asks after_seq=%lld; "
        + "goal <= 2 ms: %@",
      opening, cursor, cursor, met ? "met" : "MISSED"))
  return met
}

/// P7, in this process: store 100,000 messages page by page (100 per page, like a REST
/// catch-up) into an empty store and print the peak resident memory in KiB.
func p7Child() {
  let store = try! ChatStore(at: .file(path: temporaryFile("sync.sqlite")), owner: owner)
  for page in stride(from: 1, through: 100_000, by: 100) {
    try! store.save(messages(page...(page + 99)))
  }
  precondition(try! store.syncCursor(of: room) == 100_000)
  try! store.close()
  var usage = rusage()
  getrusage(RUSAGE_SELF_WHO, &usage)
  print(usage.ru_maxrss)  // KiB on Linux
}

func p7() throws -> Bool {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = ["p7-child"]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  process.waitUntilExit()
  let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  guard let kib = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
    print("P7: the child printed \(output)")
    return false
  }
  let megabytes = kib / 1024
  let met = megabytes <= 64
  print(
    String(
      format:
        "P7 peak memory storing 100,000 messages into an empty store (pages of 100, whole "
        + "process): %.1f MB, goal <= 64 MB: %@", megabytes, met ? "met" : "MISSED"))
  return met
}

if CommandLine.arguments.dropFirst().first == "p7-child" {
  p7Child()
  exit(0)
}
if CommandLine.arguments.dropFirst().first == "fanout" {
  try await fanOut()
  exit(0)
}
if CommandLine.arguments.dropFirst().first == "p6" {
  exit((try await p6()) ? 0 : 2)
}
var allMet = p4()
allMet = await p5() && allMet
allMet = (try p7()) && allMet
allMet = (try await p6()) && allMet
exit(allMet ? 0 : 2)
