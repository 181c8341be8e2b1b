import DTO
import Domain
import Foundation
import GRDB

/// Posts, comments and likes.
///
/// Visibility: deleted and hidden (reported or moderated) content answers 404 and is left out
/// of lists and counts for everyone, its author included; admins may still delete it.
enum Board {
  static let anonymousPostName = "Anonymous"

  // MARK: Posts

  /// Posts with their counts and the viewer's like, as `Row`s for `postDTO`.
  private static let postSelect = """
    SELECT p.*, u.nickname AS author_nickname, u.withdrawn_at AS author_withdrawn_at,
      (SELECT COUNT(*) FROM post_like l WHERE l.post_id = p.id) AS like_count,
      EXISTS(SELECT 1 FROM post_like l WHERE l.post_id = p.id AND l.user_id = ?) AS is_liked,
      (SELECT COUNT(*) FROM comment c WHERE c.post_id = p.id AND c.deleted_at IS NULL
        AND NOT c.hidden) AS comment_count
    FROM post p JOIN "user" u ON u.id = p.author_id
    WHERE p.deleted_at IS NULL AND NOT p.hidden
    """

  private static func postDTO(_ row: Row, viewer: Viewer) -> PostDTO {
    let anonymous: Bool = row["is_anonymous"]
    let withdrawn = (row["author_withdrawn_at"] as Int64?) != nil
    let authorName =
      anonymous ? anonymousPostName : withdrawn ? UserRecord.withdrawnName : row["author_nickname"]
    let id: Int64 = row["id"]
    let author: Int64 = row["author_id"]
    return PostDTO(
      id: PublicID.post(id), content: row["content"], isAnonymous: anonymous,
      authorName: authorName, isMine: author == viewer.id, likeCount: row["like_count"],
      isLiked: row["is_liked"], commentCount: row["comment_count"],
      createdAt: Millis.date(row["created_at"]))
  }

  /// A visible post, or 404.
  static func post(_ db: Database, _ key: Int64, viewer: Viewer) throws -> PostDTO {
    guard
      let row = try Row.fetchOne(
        db, sql: postSelect + " AND p.id = ?", arguments: [viewer.id, key])
    else { throw APIError.notFound("No post with id \(PublicID.post(key)).") }
    return postDTO(row, viewer: viewer)
  }

  /// Visible posts, newest first; with `query`, only those containing it (case-insensitive).
  static func posts(
    _ db: Database, viewer: Viewer, query: String?, _ page: PageRequest
  ) throws
    -> PageDTO<PostDTO>
  {
    var sql = postSelect
    var arguments: StatementArguments = [viewer.id]
    if let query {
      sql += " AND qapple_contains(p.content, ?)"
      arguments += [query]
    }
    appendNewestFirst(&sql, &arguments, page, table: "p")
    let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
    return page.page(
      rows, sortKey: { Cursor(key: $0["created_at"], id: $0["id"]) },
      item: { postDTO($0, viewer: viewer) })
  }

  static func createPost(
    _ db: Database, content: String, anonymous: Bool, viewer: Viewer, now: Date
  ) throws -> PostDTO {
    var post = PostRecord(
      authorId: viewer.id, content: content, isAnonymous: anonymous, createdAt: Millis.from(now))
    try post.insert(db)
    return try self.post(db, post.key, viewer: viewer)
  }

  /// Deletes a post and its comments (the author, or an admin).
  static func deletePost(_ db: Database, _ key: Int64, viewer: Viewer, now: Date) throws {
    guard var post = try PostRecord.fetchOne(db, key: key), post.deletedAt == nil,
      !post.hidden || viewer.isAdmin
    else { throw APIError.notFound("No post with id \(PublicID.post(key)).") }
    guard post.authorId == viewer.id || viewer.isAdmin else {
      throw APIError.forbidden("Only the author or an admin can delete this post.")
    }
    post.deletedAt = Millis.from(now)
    try post.update(db)
    try db.execute(
      sql: "UPDATE comment SET deleted_at = ? WHERE post_id = ? AND deleted_at IS NULL",
      arguments: [Millis.from(now), key])
  }

  /// Whether the post exists and is neither deleted nor hidden.
  static func isPostVisible(_ db: Database, _ key: Int64) throws -> Bool {
    try Int.fetchOne(
      db, sql: "SELECT COUNT(*) FROM post WHERE id = ? AND deleted_at IS NULL AND NOT hidden",
      arguments: [key]) ?? 0 > 0
  }

  /// A visible post record, or 404.
  static func visiblePost(_ db: Database, _ key: Int64) throws -> PostRecord {
    guard let post = try PostRecord.fetchOne(db, key: key), post.deletedAt == nil, !post.hidden
    else { throw APIError.notFound("No post with id \(PublicID.post(key)).") }
    return post
  }

  /// Likes or unlikes a post (idempotent); the author hears of the first like per liker.
  static func setPostLike(
    _ db: Database, _ key: Int64, liked: Bool, viewer: Viewer, now: Date
  ) throws -> LikeStateDTO {
    let post = try visiblePost(db, key)
    if liked {
      try db.execute(
        sql: "INSERT OR IGNORE INTO post_like (post_id, user_id, created_at) VALUES (?, ?, ?)",
        arguments: [key, viewer.id, Millis.from(now)])
      if db.changesCount > 0 {
        try Notifications.notifyOnce(
          db, user: post.authorId, actor: viewer.id, kind: "like_on_my_post",
          message: "Someone liked your post.", postID: PublicID.post(key), now: now)
      }
    } else {
      try db.execute(
        sql: "DELETE FROM post_like WHERE post_id = ? AND user_id = ?", arguments: [key, viewer.id])
    }
    let count =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM post_like WHERE post_id = ?", arguments: [key])
      ?? 0
    return LikeStateDTO(liked: liked, likeCount: count)
  }

  // MARK: Comments

  private static let commentSelect = """
    SELECT c.*, u.nickname AS author_nickname, u.withdrawn_at AS author_withdrawn_at,
      a.number AS alias_number,
      (SELECT COUNT(*) FROM comment_like l WHERE l.comment_id = c.id) AS like_count,
      EXISTS(SELECT 1 FROM comment_like l WHERE l.comment_id = c.id AND l.user_id = ?) AS is_liked
    FROM comment c JOIN "user" u ON u.id = c.author_id
    LEFT JOIN anonymous_alias a ON a.post_id = c.post_id AND a.user_id = c.author_id
    WHERE c.deleted_at IS NULL AND NOT c.hidden
    """

  private static func commentDTO(_ row: Row, viewer: Viewer) -> CommentDTO {
    let anonymous: Bool = row["is_anonymous"]
    let withdrawn = (row["author_withdrawn_at"] as Int64?) != nil
    let authorName: String
    if anonymous {
      authorName = Comment.anonymousLabel(ordinal: row["alias_number"] ?? 0)
    } else {
      authorName = withdrawn ? UserRecord.withdrawnName : row["author_nickname"]
    }
    let id: Int64 = row["id"]
    let postID: Int64 = row["post_id"]
    let author: Int64 = row["author_id"]
    return CommentDTO(
      id: PublicID.comment(id), postId: PublicID.post(postID), content: row["content"],
      isAnonymous: anonymous, authorName: authorName, isMine: author == viewer.id,
      likeCount: row["like_count"], isLiked: row["is_liked"],
      createdAt: Millis.date(row["created_at"]))
  }

  static func comment(_ db: Database, _ key: Int64, viewer: Viewer) throws -> CommentDTO {
    guard
      let row = try Row.fetchOne(
        db, sql: commentSelect + " AND c.id = ?", arguments: [viewer.id, key])
    else { throw APIError.notFound("No comment with id \(PublicID.comment(key)).") }
    return commentDTO(row, viewer: viewer)
  }

  /// Comments of a visible post, oldest first.
  static func comments(
    _ db: Database, postKey: Int64, viewer: Viewer, _ page: PageRequest
  ) throws
    -> PageDTO<CommentDTO>
  {
    _ = try visiblePost(db, postKey)
    var sql = commentSelect + " AND c.post_id = ?"
    var arguments: StatementArguments = [viewer.id, postKey]
    appendOldestFirst(&sql, &arguments, page, table: "c")
    let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
    return page.page(
      rows, sortKey: { Cursor(key: $0["created_at"], id: $0["id"]) },
      item: { commentDTO($0, viewer: viewer) })
  }

  /// Adds a comment; the post's author and earlier commenters are notified.
  static func createComment(
    _ db: Database, postKey: Int64, content: String, anonymous: Bool, viewer: Viewer, now: Date
  ) throws -> CommentDTO {
    let post = try visiblePost(db, postKey)
    if anonymous {
      // "Anonymous N": N is given on a user's first anonymous comment in this post.
      try db.execute(
        sql: """
          INSERT OR IGNORE INTO anonymous_alias (post_id, user_id, number)
          VALUES (?, ?, (SELECT COALESCE(MAX(number), 0) + 1 FROM anonymous_alias WHERE post_id = ?))
          """,
        arguments: [postKey, viewer.id, postKey])
    }
    var comment = CommentRecord(
      postId: postKey, authorId: viewer.id, content: content, isAnonymous: anonymous,
      createdAt: Millis.from(now))
    try comment.insert(db)
    let postID = PublicID.post(postKey)
    let commentID = PublicID.comment(comment.key)
    try Notifications.notify(
      db, user: post.authorId, actor: viewer.id, kind: "comment_on_my_post",
      message: "Someone commented on your post.", postID: postID, commentID: commentID, now: now)
    let earlier = try Int64.fetchAll(
      db,
      sql: """
        SELECT DISTINCT author_id FROM comment
        WHERE post_id = ? AND deleted_at IS NULL AND id <> ? AND author_id NOT IN (?, ?)
        """,
      arguments: [postKey, comment.key, post.authorId, viewer.id])
    for user in earlier {
      try Notifications.notify(
        db, user: user, actor: viewer.id, kind: "reply_to_my_comment",
        message: "Someone replied on a post you commented on.", postID: postID,
        commentID: commentID, now: now)
    }
    return try self.comment(db, comment.key, viewer: viewer)
  }

  /// Deletes a comment (the author, or an admin).
  static func deleteComment(_ db: Database, _ key: Int64, viewer: Viewer, now: Date) throws {
    guard var comment = try CommentRecord.fetchOne(db, key: key), comment.deletedAt == nil,
      !comment.hidden || viewer.isAdmin
    else { throw APIError.notFound("No comment with id \(PublicID.comment(key)).") }
    guard comment.authorId == viewer.id || viewer.isAdmin else {
      throw APIError.forbidden("Only the author or an admin can delete this comment.")
    }
    comment.deletedAt = Millis.from(now)
    try comment.update(db)
  }

  /// A visible comment on a visible post, or 404.
  static func visibleComment(_ db: Database, _ key: Int64) throws -> CommentRecord {
    guard let comment = try CommentRecord.fetchOne(db, key: key), comment.deletedAt == nil,
      !comment.hidden, try isPostVisible(db, comment.postId)
    else { throw APIError.notFound("No comment with id \(PublicID.comment(key)).") }
    return comment
  }

  static func setCommentLike(
    _ db: Database, _ key: Int64, liked: Bool, viewer: Viewer, now: Date
  ) throws -> LikeStateDTO {
    let comment = try visibleComment(db, key)
    if liked {
      try db.execute(
        sql:
          "INSERT OR IGNORE INTO comment_like (comment_id, user_id, created_at) VALUES (?, ?, ?)",
        arguments: [key, viewer.id, Millis.from(now)])
      if db.changesCount > 0 {
        try Notifications.notifyOnce(
          db, user: comment.authorId, actor: viewer.id, kind: "like_on_my_comment",
          message: "Someone liked your comment.", postID: PublicID.post(comment.postId),
          commentID: PublicID.comment(key), now: now)
      }
    } else {
      try db.execute(
        sql: "DELETE FROM comment_like WHERE comment_id = ? AND user_id = ?",
        arguments: [key, viewer.id])
    }
    let count =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM comment_like WHERE comment_id = ?", arguments: [key]) ?? 0
    return LikeStateDTO(liked: liked, likeCount: count)
  }
}
