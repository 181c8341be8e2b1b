import GRDB

/// The database schema, one `DatabaseMigrator` migration per change. Migrations only ever get
/// appended: a database file from an older server version upgrades in place on start.
///
/// Conventions: integer primary keys (the public id is a prefix plus the key, see `PublicID`),
/// timestamps as INTEGER milliseconds since 1970 (exact in cursors, sortable), booleans as 0/1.
enum Schema {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: accounts, content, moderation, groups, chat") { db in
      try createAccounts(db)
      try createQuestions(db)
      try createBoard(db)
      try createModeration(db)
      try createGroupsAndChat(db)
      try createMisc(db)
    }
    migrator.registerMigration("v2: idempotency request fingerprint") { db in
      // Lets a reused Idempotency-Key with a different request be refused instead of replayed.
      try db.alter(table: "idempotency") { t in
        t.add(column: "request_hash", .text)
      }
    }
    migrator.registerMigration("v3: unread notifications by room") { db in
      // Every chat message moves each other member's unread `group_message` notification of
      // the room (`Chat.notifyGroupMembers`): one index entry instead of a scan of all the
      // member's notifications.
      try db.execute(
        sql: """
          CREATE INDEX notification_unread_by_room ON notification(user_id, room_id, kind)
          WHERE NOT is_read
          """)
    }
    migrator.registerMigration("v4: refresh retries") { db in
      // On a refresh token, `paired_with`: the access token issued with it, and `replaced_by`:
      // the refresh token that replaced it once spent; on an access token, `used_at`: when it
      // was first presented. Together they tell a retried refresh whose answer was lost from a
      // replayed one (`Sessions.unclaimedSuccessor`).
      try db.alter(table: "auth_token") { t in
        t.add(column: "paired_with", .text)
        t.add(column: "replaced_by", .text)
        t.add(column: "used_at", .integer)
      }
    }
    migrator.registerMigration("v5: avatar paths") { db in
      // `avatar_url` held a whole URL built from the uploading request's Host header, so one
      // member's header decided where everyone loaded the picture from. It keeps the path now,
      // and `Users.user` puts the service's public URL in front.
      try db.execute(
        sql: """
          UPDATE "user" SET avatar_url = substr(avatar_url, instr(avatar_url, '/avatars/'))
          WHERE instr(avatar_url, '/avatars/') > 1
          """)
    }
    migrator.registerMigration("v6: report cases by opening") { db in
      // The inbox lists the most recently opened case first; a resolved case that new reports
      // reopen counts from its reopening (it sorted by its first report, far down the inbox).
      // Cases from before keep their first report's time.
      try db.alter(table: "report_case") { t in
        t.add(column: "opened_at", .integer).notNull().defaults(to: 0)
      }
      try db.execute(sql: "UPDATE report_case SET opened_at = first_reported_at")
    }
    return migrator
  }

  private static func createAccounts(_ db: Database) throws {
    try db.create(table: "user") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("nickname", .text).notNull()
      // Lower-cased nickname for case-insensitive uniqueness; NULL once withdrawn (frees it).
      t.column("nickname_key", .text).unique()
      t.column("role", .text).notNull().defaults(to: "member")
      t.column("cohort", .text)
      t.column("joined_at", .integer).notNull()
      t.column("avatar_url", .text)
      // "dev:<token>": the provider account that signs into this user; NULL once withdrawn.
      t.column("provider_key", .text).unique()
      t.column("email", .text)
      t.column("terms_version", .text)
      t.column("banned", .boolean).notNull().defaults(to: false)
      t.column("banned_until", .integer)
      t.column("ban_reason", .text)
      t.column("withdrawn_at", .integer)
    }
    try db.create(table: "sign_up") { t in
      t.primaryKey("token", .text)
      t.column("provider_key", .text).notNull()
      t.column("created_at", .integer).notNull()
      t.column("expires_at", .integer).notNull()
      t.column("email", .text)
      t.column("code", .text)
      t.column("code_expires_at", .integer)
      t.column("attempts", .integer).notNull().defaults(to: 0)
      t.column("verification_token", .text).unique()
      t.column("verified_email", .text)
    }
    try db.create(table: "auth_token") { t in
      t.primaryKey("token", .text)
      t.column("kind", .text).notNull()  // access | refresh
      t.column("user_id", .integer).notNull().indexed().references("user", onDelete: .cascade)
      // Every token minted from one sign-in shares a family; reuse of a spent refresh token
      // revokes the whole family.
      t.column("family", .text).notNull().indexed()
      t.column("created_at", .integer).notNull()
      t.column("expires_at", .integer).notNull()
      t.column("revoked_at", .integer)
    }
  }

  private static func createQuestions(_ db: Database) throws {
    try db.create(table: "question") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("content", .text).notNull()
      t.column("publish_date", .text).notNull().unique()  // YYYY-MM-DD, one question per day
      t.column("created_at", .integer).notNull()
    }
    try db.create(table: "answer") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("question_id", .integer).notNull().indexed().references(
        "question", onDelete: .cascade)
      t.column("author_id", .integer).notNull().indexed().references("user")
      t.column("content", .text).notNull()
      t.column("created_at", .integer).notNull()
      t.column("hidden", .boolean).notNull().defaults(to: false)
      t.column("deleted_at", .integer)
    }
    // One live answer per user and question; a deleted answer may be written again.
    try db.execute(
      sql: """
        CREATE UNIQUE INDEX answer_one_per_user ON answer(question_id, author_id)
        WHERE deleted_at IS NULL
        """)
    try db.create(index: "answer_by_author", on: "answer", columns: ["author_id", "created_at"])
  }

  private static func createBoard(_ db: Database) throws {
    try db.create(table: "post") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("author_id", .integer).notNull().indexed().references("user")
      t.column("content", .text).notNull()
      t.column("is_anonymous", .boolean).notNull()
      t.column("created_at", .integer).notNull()
      t.column("hidden", .boolean).notNull().defaults(to: false)
      t.column("deleted_at", .integer)
    }
    try db.create(index: "post_by_time", on: "post", columns: ["created_at", "id"])
    try db.create(table: "comment") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("post_id", .integer).notNull().indexed().references("post", onDelete: .cascade)
      t.column("author_id", .integer).notNull().indexed().references("user")
      t.column("content", .text).notNull()
      t.column("is_anonymous", .boolean).notNull()
      t.column("created_at", .integer).notNull()
      t.column("hidden", .boolean).notNull().defaults(to: false)
      t.column("deleted_at", .integer)
    }
    // "Anonymous N" labels: N is stable per (post, author), in order of first anonymous comment.
    try db.create(table: "anonymous_alias") { t in
      t.column("post_id", .integer).notNull().indexed().references("post", onDelete: .cascade)
      t.column("user_id", .integer).notNull().indexed().references("user", onDelete: .cascade)
      t.column("number", .integer).notNull()
      t.primaryKey(["post_id", "user_id"])
      t.uniqueKey(["post_id", "number"])
    }
    try db.create(table: "post_like") { t in
      t.column("post_id", .integer).notNull().indexed().references("post", onDelete: .cascade)
      t.column("user_id", .integer).notNull().indexed().references("user", onDelete: .cascade)
      t.column("created_at", .integer).notNull()
      t.primaryKey(["post_id", "user_id"])
    }
    try db.create(table: "comment_like") { t in
      t.column("comment_id", .integer).notNull().indexed().references("comment", onDelete: .cascade)
      t.column("user_id", .integer).notNull().indexed().references("user", onDelete: .cascade)
      t.column("created_at", .integer).notNull()
      t.primaryKey(["comment_id", "user_id"])
    }
  }

  private static func createModeration(_ db: Database) throws {
    try db.create(table: "report_case") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("target_type", .text).notNull()
      t.column("target_id", .text).notNull()  // the public id of the target
      t.column("author_id", .integer).indexed().references("user")
      t.column("status", .text).notNull()
      t.column("resolution", .text)
      t.column("note", .text)
      t.column("first_reported_at", .integer).notNull()
      t.column("last_reported_at", .integer).notNull()
      t.column("resolved_at", .integer)
      t.uniqueKey(["target_type", "target_id"])
    }
    try db.create(table: "report") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("case_id", .integer).notNull().indexed().references(
        "report_case", onDelete: .cascade)
      t.column("reporter_id", .integer).notNull().indexed().references("user")
      t.column("target_type", .text).notNull()
      t.column("target_id", .text).notNull()
      t.column("reason", .text).notNull()
      t.column("detail", .text)
      t.column("status", .text).notNull()
      t.column("created_at", .integer).notNull()
      t.uniqueKey(["reporter_id", "target_type", "target_id"])
    }
    try db.create(table: "notification") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("user_id", .integer).notNull().indexed().references("user", onDelete: .cascade)
      t.column("kind", .text).notNull()
      t.column("message", .text).notNull()
      t.column("is_read", .boolean).notNull().defaults(to: false)
      t.column("created_at", .integer).notNull()
      t.column("post_id", .text)
      t.column("comment_id", .text)
      t.column("question_id", .text)
      t.column("group_id", .text)
      t.column("room_id", .text)
      // Who caused it; lets "like" notify once per liker and target.
      t.column("actor_id", .integer)
    }
    try db.create(index: "notification_by_user", on: "notification", columns: ["user_id", "id"])
  }

  private static func createGroupsAndChat(_ db: Database) throws {
    try db.create(table: "study_group") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("name", .text).notNull()
      t.column("description", .text).notNull()
      t.column("owner_id", .integer).notNull().indexed().references("user")
      t.column("created_at", .integer).notNull()
    }
    try db.create(table: "group_member") { t in
      t.column("group_id", .integer).notNull().indexed().references(
        "study_group", onDelete: .cascade)
      t.column("user_id", .integer).notNull().indexed().references("user", onDelete: .cascade)
      t.column("role", .text).notNull()
      t.column("joined_at", .integer).notNull()
      t.primaryKey(["group_id", "user_id"])
    }
    try db.create(table: "chat_room") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("kind", .text).notNull()  // group | direct
      t.column("group_id", .integer).unique().references("study_group", onDelete: .cascade)
      // A direct room's two users, the smaller id first, so one pair has one room.
      t.column("user_a", .integer)
      t.column("user_b", .integer)
      t.column("created_at", .integer).notNull()
      t.column("last_seq", .integer).notNull().defaults(to: 0)
      t.uniqueKey(["user_a", "user_b"])
    }
    try db.create(table: "room_read") { t in
      t.column("room_id", .integer).notNull().indexed().references("chat_room", onDelete: .cascade)
      t.column("user_id", .integer).notNull().indexed().references("user", onDelete: .cascade)
      t.column("last_read_seq", .integer).notNull()
      t.primaryKey(["room_id", "user_id"])
    }
    try db.create(table: "chat_message") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("room_id", .integer).notNull().indexed().references("chat_room", onDelete: .cascade)
      t.column("seq", .integer).notNull()
      t.column("client_message_id", .text).notNull()
      t.column("sender_id", .integer).notNull().indexed().references("user")
      t.column("text", .text).notNull()
      t.column("created_at", .integer).notNull()
      t.column("hidden", .boolean).notNull().defaults(to: false)
      t.uniqueKey(["room_id", "seq"])
      t.uniqueKey(["sender_id", "client_message_id"])
    }
  }

  private static func createMisc(_ db: Database) throws {
    // Uploaded profile pictures, served at /avatars/<user id>.
    try db.create(table: "avatar") { t in
      t.primaryKey("user_id", .integer).references("user", onDelete: .cascade)
      t.column("content_type", .text).notNull()
      t.column("data", .blob).notNull()
      t.column("updated_at", .integer).notNull()
    }
    try db.create(table: "analytics_event") { t in
      t.autoIncrementedPrimaryKey("id")
      t.column("user_id", .integer).indexed().references("user", onDelete: .setNull)
      t.column("name", .text).notNull()
      t.column("properties", .text).notNull()  // JSON object of strings
      t.column("occurred_at", .integer).notNull()
      t.column("session_id", .text)
      t.column("received_at", .integer).notNull()
    }
    // Stored first results of writes sent with an Idempotency-Key header.
    try db.create(table: "idempotency") { t in
      t.column("scope", .text).notNull()  // user id, or "public"
      t.column("operation", .text).notNull()
      t.column("key", .text).notNull()
      t.column("status", .integer).notNull()
      t.column("body", .blob).notNull()
      t.column("created_at", .integer).notNull()
      t.primaryKey(["scope", "operation", "key"])
    }
  }
}
