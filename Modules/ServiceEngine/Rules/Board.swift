import Domain
import Foundation
import GRDB

/// Posts, comments and likes (`Docs/Rules.md`, "Board").
///
/// Visibility: deleted and hidden (reported or moderated) content is `notFound` and left out
/// of lists and counts for everyone, its author included; admins may still delete it.
enum Board {
  /// Posts with their counts and the viewer's like.
  static let postSelect = """
    SELECT p.*, u.nickname AS author_nickname, u.withdrawn_at AS author_withdrawn_at,
      (SELECT COUNT(*) FROM post_like l WHERE l.post_id = p.id) AS like_count,
      EXISTS(SELECT 1 FROM post_like l WHERE l.post_id = p.id AND l.user_id = ?) AS is_liked,
      (SELECT COUNT(*) FROM comment c WHERE c.post_id = p.id AND c.deleted_at IS NULL
        AND NOT c.hidden) AS comment_count
    FROM post p JOIN "user" u ON u.id = p.author_id
    WHERE p.deleted_at IS NULL AND NOT p.hidden
    """

  static func post(_ row: Row, viewer: Viewer) -> BoardPost {
    let anonymous: Bool = row["is_anonymous"]
    let withdrawn = (row["author_withdrawn_at"] as Int64?) != nil
    let authorName =
      anonymous
      ? BoardPost.anonymousAuthorName
      : withdrawn ? UserRecord.withdrawnName : row["author_nickname"]
    let author: Int64 = row["author_id"]
    return BoardPost(
      id: BoardPost.ID(rawValue: PublicID.post(row["id"])), content: row["content"],
      isAnonymous: anonymous, authorName: authorName, isMine: author == viewer.key,
      likeCount: row["like_count"], isLiked: row["is_liked"], commentCount: row["comment_count"],
      createdAt: Millis.date(row["created_at"]))
  }

  /// A visible post, or `notFound`.
  static func post(_ db: Database, _ key: Int64, viewer: Viewer) throws -> BoardPost {
    guard
      let row = try Row.fetchOne(
        db, sql: postSelect + " AND p.id = ?", arguments: [viewer.key, key])
    else { throw DomainError.notFound }
    return post(row, viewer: viewer)
  }

  /// Whether the post exists and is neither deleted nor hidden.
  static func isPostVisible(_ db: Database, _ key: Int64) throws -> Bool {
    try db.count(
      "SELECT COUNT(*) FROM post WHERE id = ? AND deleted_at IS NULL AND NOT hidden", [key]) > 0
  }

  /// A visible post record, or `notFound`.
  static func visiblePost(_ db: Database, _ key: Int64) throws -> PostRecord {
    guard let post = try PostRecord.fetchOne(db, key: key), post.deletedAt == nil, !post.hidden
    else { throw DomainError.notFound }
    return post
  }

  static let commentSelect = """
    SELECT c.*, u.nickname AS author_nickname, u.withdrawn_at AS author_withdrawn_at,
      a.number AS alias_number,
      (SELECT COUNT(*) FROM comment_like l WHERE l.comment_id = c.id) AS like_count,
      EXISTS(SELECT 1 FROM comment_like l WHERE l.comment_id = c.id AND l.user_id = ?) AS is_liked
    FROM comment c JOIN "user" u ON u.id = c.author_id
    LEFT JOIN anonymous_alias a ON a.post_id = c.post_id AND a.user_id = c.author_id
    WHERE c.deleted_at IS NULL AND NOT c.hidden
    """

  static func comment(_ row: Row, viewer: Viewer) -> Comment {
    let anonymous: Bool = row["is_anonymous"]
    let withdrawn = (row["author_withdrawn_at"] as Int64?) != nil
    let authorName: String =
      if anonymous {
        Comment.anonymousLabel(ordinal: row["alias_number"] ?? 0)
      } else {
        withdrawn ? UserRecord.withdrawnName : row["author_nickname"]
      }
    let author: Int64 = row["author_id"]
    return Comment(
      id: Comment.ID(rawValue: PublicID.comment(row["id"])),
      postID: BoardPost.ID(rawValue: PublicID.post(row["post_id"])), content: row["content"],
      isAnonymous: anonymous, authorName: authorName, isMine: author == viewer.key,
      likeCount: row["like_count"], isLiked: row["is_liked"],
      createdAt: Millis.date(row["created_at"]))
  }

  /// A visible comment on a visible post, or `notFound`.
  static func visibleComment(_ db: Database, _ key: Int64) throws -> CommentRecord {
    guard let comment = try CommentRecord.fetchOne(db, key: key), comment.deletedAt == nil,
      !comment.hidden, try isPostVisible(db, comment.postId)
    else { throw DomainError.notFound }
    return comment
  }

  /// Sets or clears a like row and answers the new state; `inserted` runs on a new like.
  static func setLike(
    _ db: Database, table: String, column: String, key: Int64, liked: Bool, viewer: Viewer,
    now: Date, inserted: () throws -> Void
  ) throws -> LikeState {
    if liked {
      try db.execute(
        sql: "INSERT OR IGNORE INTO \(table) (\(column), user_id, created_at) VALUES (?, ?, ?)",
        arguments: [key, viewer.key, Millis.from(now)])
      if db.changesCount > 0 { try inserted() }
    } else {
      try db.execute(
        sql: "DELETE FROM \(table) WHERE \(column) = ? AND user_id = ?",
        arguments: [key, viewer.key])
    }
    let count =
      try db.count("SELECT COUNT(*) FROM \(table) WHERE \(column) = ?", [key])
    return LikeState(isLiked: liked, likeCount: count)
  }

  /// Whether `viewer` may delete content by `author` that is `hidden`: the author while it is
  /// visible, an admin always.
  static func checkDeletable(author: Int64, hidden: Bool, viewer: Viewer) throws {
    guard !hidden || viewer.isAdmin else { throw DomainError.notFound }
    guard author == viewer.key || viewer.isAdmin else { throw DomainError.forbidden }
  }
}

extension ServiceEngine {
  /// Visible posts, newest first; with `query`, only those containing it (case-insensitive,
  /// 1-100 characters).
  public func posts(
    matching query: String? = nil, _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<BoardPost> {
    let query = try query.map { text throws(DomainError) in
      try validated(try TextRule.search.validate(text))
    }
    let paging = try Paging(request)
    return try read { db, _ in
      var sql = Board.postSelect
      var arguments: StatementArguments = [viewer.key]
      if let query {
        sql += " AND qapple_contains(p.content, ?)"
        arguments += [query]
      }
      return try paging.fetch(db, sql: sql, arguments, table: "p") {
        Board.post($0, viewer: viewer)
      }
    }
  }

  /// One visible post.
  public func post(_ id: BoardPost.ID, as viewer: Viewer) throws(DomainError) -> BoardPost {
    let key = try PublicID.post.require(id.rawValue)
    return try read { db, _ in try Board.post(db, key, viewer: viewer) }
  }

  /// Publishes a post (1-1000 characters).
  public func createPost(_ draft: PostDraft, as viewer: Viewer) throws(DomainError) -> BoardPost {
    try viewer.requireNotBanned(at: now)
    let content = try validated(try TextRule.post.validate(draft.content))
    return try write { db, moment in
      var post = PostRecord(
        authorId: viewer.key, content: content, isAnonymous: draft.isAnonymous,
        createdAt: moment.millis)
      try post.insert(db)
      return try Board.post(db, post.key, viewer: viewer)
    }
  }

  /// Deletes a post and its comments (the author, or an admin).
  public func deletePost(_ id: BoardPost.ID, as viewer: Viewer) throws(DomainError) {
    let key = try PublicID.post.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    try write { db, moment in
      guard var post = try PostRecord.fetchOne(db, key: key), post.deletedAt == nil else {
        throw DomainError.notFound
      }
      try Board.checkDeletable(author: post.authorId, hidden: post.hidden, viewer: viewer)
      post.deletedAt = moment.millis
      try post.update(db)
      try db.execute(
        sql: "UPDATE comment SET deleted_at = ? WHERE post_id = ? AND deleted_at IS NULL",
        arguments: [moment.millis, key])
    }
  }

  /// Likes or unlikes a post (idempotent); the author hears of the first like per liker.
  public func setPostLike(
    _ id: BoardPost.ID, isLiked: Bool, as viewer: Viewer
  ) throws(DomainError) -> LikeState {
    let key = try PublicID.post.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    return try write { db, moment in
      let post = try Board.visiblePost(db, key)
      return try Board.setLike(
        db, table: "post_like", column: "post_id", key: key, liked: isLiked, viewer: viewer,
        now: moment.now
      ) {
        try Notifications.notifyOnce(
          db, post.authorId, of: .postLiked(post: key), actor: viewer.key, now: moment.now)
      }
    }
  }

  /// Comments of a visible post, oldest first.
  public func comments(
    on id: BoardPost.ID, _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<Comment> {
    let key = try PublicID.post.require(id.rawValue)
    let paging = try Paging(request)
    return try read { db, _ in
      _ = try Board.visiblePost(db, key)
      return try paging.fetch(
        db, sql: Board.commentSelect + " AND c.post_id = ?", [viewer.key, key], table: "c",
        descending: false
      ) { Board.comment($0, viewer: viewer) }
    }
  }

  /// Comments on a visible post (1-300 characters); the post's author and earlier commenters
  /// are notified. An anonymous commenter is "Anonymous N", N stable per post.
  public func createComment(
    on id: BoardPost.ID, _ draft: CommentDraft, as viewer: Viewer
  ) throws(DomainError) -> Comment {
    let key = try PublicID.post.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    let content = try validated(try TextRule.comment.validate(draft.content))
    return try write { db, moment in
      let post = try Board.visiblePost(db, key)
      if draft.isAnonymous {
        // N is given on a user's first anonymous comment in this post.
        try db.execute(
          sql: """
            INSERT OR IGNORE INTO anonymous_alias (post_id, user_id, number)
            VALUES (?, ?, (SELECT COALESCE(MAX(number), 0) + 1 FROM anonymous_alias WHERE post_id = ?))
            """,
          arguments: [key, viewer.key, key])
      }
      var comment = CommentRecord(
        postId: key, authorId: viewer.key, content: content, isAnonymous: draft.isAnonymous,
        createdAt: moment.millis)
      try comment.insert(db)
      guard
        let row = try Row.fetchOne(
          db, sql: Board.commentSelect + " AND c.id = ?", arguments: [viewer.key, comment.key])
      else { throw DomainError.notFound }
      let made = Board.comment(row, viewer: viewer)
      try Notifications.notify(
        db, post.authorId, of: .commentOnPost(post: key, comment: comment.key, by: made.authorName),
        actor: viewer.key, now: moment.now)
      let earlier = try Int64.fetchAll(
        db,
        sql: """
          SELECT DISTINCT author_id FROM comment
          WHERE post_id = ? AND deleted_at IS NULL AND NOT hidden AND id <> ?
            AND author_id NOT IN (?, ?)
          """,
        arguments: [key, comment.key, post.authorId, viewer.key])
      for user in earlier {
        try Notifications.notify(
          db, user, of: .replyUnderPost(post: key, comment: comment.key, by: made.authorName),
          actor: viewer.key, now: moment.now)
      }
      return made
    }
  }

  /// Deletes a comment (the author, or an admin).
  public func deleteComment(_ id: Comment.ID, as viewer: Viewer) throws(DomainError) {
    let key = try PublicID.comment.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    try write { db, moment in
      guard var comment = try CommentRecord.fetchOne(db, key: key), comment.deletedAt == nil else {
        throw DomainError.notFound
      }
      // A comment under a hidden post is hidden with it.
      let hidden = try comment.hidden || !Board.isPostVisible(db, comment.postId)
      try Board.checkDeletable(author: comment.authorId, hidden: hidden, viewer: viewer)
      comment.deletedAt = moment.millis
      try comment.update(db)
    }
  }

  /// Likes or unlikes a comment (idempotent); its author hears of the first like per liker.
  public func setCommentLike(
    _ id: Comment.ID, isLiked: Bool, as viewer: Viewer
  ) throws(DomainError) -> LikeState {
    let key = try PublicID.comment.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    return try write { db, moment in
      let comment = try Board.visibleComment(db, key)
      return try Board.setLike(
        db, table: "comment_like", column: "comment_id", key: key, liked: isLiked,
        viewer: viewer, now: moment.now
      ) {
        try Notifications.notifyOnce(
          db, comment.authorId, of: .commentLiked(post: comment.postId, comment: key),
          actor: viewer.key, now: moment.now)
      }
    }
  }
}
