import Domain
import Foundation

// The bulletin board: posts, search, comments with stable anonymous labels, likes.

extension BackendState {
  /// The label of anonymous posts.
  static let anonymousName = "Anonymous"

  func postView(_ post: PostRecord, viewer: User.ID) -> BoardPost {
    BoardPost(
      id: post.id, content: post.content, isAnonymous: post.isAnonymous,
      authorName: post.isAnonymous ? Self.anonymousName : nickname(of: post.authorID),
      isMine: post.authorID == viewer, likeCount: post.likes.count,
      isLiked: post.likes.contains(viewer),
      commentCount: comments.values.count(where: { $0.postID == post.id && !$0.isHidden }),
      createdAt: post.createdAt)
  }

  func commentView(_ comment: CommentRecord, viewer: User.ID) -> Comment {
    Comment(
      id: comment.id, postID: comment.postID, content: comment.content,
      isAnonymous: comment.isAnonymous, authorName: commentAuthorName(comment),
      isMine: comment.authorID == viewer, likeCount: comment.likes.count,
      isLiked: comment.likes.contains(viewer), createdAt: comment.createdAt)
  }

  /// "Anonymous N" (stable per post and author) or the nickname.
  func commentAuthorName(_ comment: CommentRecord) -> String {
    guard comment.isAnonymous else { return nickname(of: comment.authorID) }
    let ordinal = posts[comment.postID]?.anonymousOrdinals[comment.authorID] ?? 0
    return Comment.anonymousLabel(ordinal: ordinal)
  }

  /// A post members can see, else `notFound`.
  func visiblePost(_ id: BoardPost.ID) throws(DomainError) -> PostRecord {
    guard let post = posts[id], !post.isHidden else { throw .notFound }
    return post
  }

  /// A comment members can see (on a post they can see), else `notFound`.
  func visibleComment(_ id: Comment.ID) throws(DomainError) -> CommentRecord {
    guard let comment = comments[id], !comment.isHidden else { throw .notFound }
    _ = try visiblePost(comment.postID)
    return comment
  }

  // MARK: - Posts

  func fetchPosts(viewer: User.ID, page: PageRequest) throws(DomainError) -> Page<BoardPost> {
    try paginate(
      posts.values.filter { !$0.isHidden }, by: { .date($0.createdAt, $0.order) }, .descending,
      page
    ).map { postView($0, viewer: viewer) }
  }

  func searchPosts(
    _ query: String, viewer: User.ID, page: PageRequest
  ) throws(DomainError) -> Page<BoardPost> {
    let text = try validating { () throws(ValidationError) in
      try TextRule(field: "q", length: 1...100).validate(query)
    }
    return try paginate(
      posts.values.filter {
        !$0.isHidden && $0.content.range(of: text, options: .caseInsensitive) != nil
      },
      by: { .date($0.createdAt, $0.order) }, .descending, page
    ).map { postView($0, viewer: viewer) }
  }

  func fetchPost(_ id: BoardPost.ID, viewer: User.ID) throws(DomainError) -> BoardPost {
    postView(try visiblePost(id), viewer: viewer)
  }

  mutating func createPost(_ draft: PostDraft, author: User.ID) throws(DomainError) -> BoardPost {
    let valid = try validating { () throws(ValidationError) in try draft.validated() }
    let post = PostRecord(
      id: makeID("p"), authorID: author, content: valid.content, isAnonymous: valid.isAnonymous,
      createdAt: now, order: nextOrder())
    posts[post.id] = post
    return postView(post, viewer: author)
  }

  /// Authors delete their posts; admins delete anything (hidden posts too). Comments go along.
  mutating func deletePost(_ id: BoardPost.ID, by userID: User.ID) throws(DomainError) {
    let isAdmin = users[userID]?.role.isAdmin == true
    guard let post = posts[id], isAdmin || !post.isHidden else { throw .notFound }
    guard isAdmin || post.authorID == userID else { throw .forbidden }
    posts[id] = nil
    comments = comments.filter { $0.value.postID != id }
  }

  mutating func setPostLike(
    _ id: BoardPost.ID, isLiked: Bool, by userID: User.ID
  ) throws(DomainError) -> LikeState {
    var post = try visiblePost(id)
    if isLiked {
      post.likes.insert(userID)
      if post.authorID != userID, notifiedLikes.insert("post:\(id):\(userID)").inserted {
        notify(post.authorID, .likeOnMyPost(post: id), message: "Someone liked your post.")
      }
    } else {
      post.likes.remove(userID)
    }
    posts[id] = post
    return LikeState(isLiked: isLiked, likeCount: post.likes.count)
  }

  // MARK: - Comments

  func fetchComments(
    of postID: BoardPost.ID, viewer: User.ID, page: PageRequest
  ) throws(DomainError) -> Page<Comment> {
    _ = try visiblePost(postID)
    return try paginate(
      comments.values.filter { $0.postID == postID && !$0.isHidden },
      by: { .date($0.createdAt, $0.order) }, .ascending, page
    ).map { commentView($0, viewer: viewer) }
  }

  mutating func createComment(
    on postID: BoardPost.ID, draft: CommentDraft, author: User.ID
  ) throws(DomainError) -> Comment {
    let valid = try validating { () throws(ValidationError) in try draft.validated() }
    var post = try visiblePost(postID)
    if valid.isAnonymous, post.anonymousOrdinals[author] == nil {
      post.anonymousOrdinals[author] = post.anonymousOrdinals.count + 1
      posts[postID] = post
    }
    let comment = CommentRecord(
      id: makeID("c"), postID: postID, authorID: author, content: valid.content,
      isAnonymous: valid.isAnonymous, createdAt: now, order: nextOrder())
    // Earlier commenters are collected before the new comment is stored.
    let earlierCommenters = Set(
      comments.values.filter { $0.postID == postID }.map(\.authorID))
    comments[comment.id] = comment
    let name = commentAuthorName(comment)
    if post.authorID != author {
      notify(
        post.authorID, .commentOnMyPost(post: postID, comment: comment.id),
        message: "\(name) commented on your post: \(comment.content.excerpt)")
    }
    for commenter in earlierCommenters.sorted()
    where commenter != author && commenter != post.authorID {
      notify(
        commenter, .replyToMyComment(post: postID, comment: comment.id),
        message: "\(name) also commented on a post you commented on: \(comment.content.excerpt)")
    }
    return commentView(comment, viewer: author)
  }

  /// Authors delete their comments; admins delete anything.
  mutating func deleteComment(_ id: Comment.ID, by userID: User.ID) throws(DomainError) {
    let isAdmin = users[userID]?.role.isAdmin == true
    guard let comment = comments[id], isAdmin || !comment.isHidden else { throw .notFound }
    guard isAdmin || comment.authorID == userID else { throw .forbidden }
    comments[id] = nil
  }

  mutating func setCommentLike(
    _ id: Comment.ID, isLiked: Bool, by userID: User.ID
  ) throws(DomainError) -> LikeState {
    var comment = try visibleComment(id)
    if isLiked {
      comment.likes.insert(userID)
      if comment.authorID != userID, notifiedLikes.insert("comment:\(id):\(userID)").inserted {
        notify(
          comment.authorID, .likeOnMyComment(post: comment.postID, comment: id),
          message: "Someone liked your comment.")
      }
    } else {
      comment.likes.remove(userID)
    }
    comments[id] = comment
    return LikeState(isLiked: isLiked, likeCount: comment.likes.count)
  }
}

extension String {
  /// The first 40 characters, with an ellipsis when cut.
  var excerpt: String {
    count <= 40 ? self : String(prefix(40)) + "…"
  }
}
