declare const NIB_VERSION: string;
console.log(typeof NIB_VERSION === 'string' ? NIB_VERSION : 'dev');
